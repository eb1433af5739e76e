# The service, run from its TypeScript sources with tsx (as `npm start` does in development).
FROM node:24-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so that a change in the sources does not reinstall them.
COPY package.json package-lock.json ./
# the workspace of the generated API client (clients/typescript): npm ci needs its package.json
COPY clients/typescript/package.json clients/typescript/
RUN npm ci --omit=dev && npm cache clean --force

COPY . .

# DATA_DIR (generated secrets; embedded PostgreSQL data when DATABASE_URL is unset) lives in a volume. /checkpoints is
# where docker-compose.yml mounts the ledger checkpoints' shared volume (a new volume takes this folder's owner).
RUN mkdir -p /data /checkpoints && chown node:node /data /checkpoints
ENV DATA_DIR=/data
# the service listens on loopback unless told otherwise; in a container, the published port reaches it on every interface
ENV HOST=0.0.0.0
VOLUME /data

USER node
EXPOSE 3000 3001
CMD ["npm", "start"]
