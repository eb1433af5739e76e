/**
 * The owner's guard learns key rotations (docs/auditing.md, "Keys"): a rotation checkpoint carries `nextKey` (the new
 * Ed25519 public key, base64 SPKI DER) in its signed text and `nextKeySignature` (the new key's signature over that
 * text) beside it. `ledger_append_checkpoints` takes one only with both signatures valid, registers its `nextKey` in
 * `ledger_keys` itself, and from then on takes only that key's checkpoints: every checkpoint must be signed by the
 * chain's key (the last checkpoint's `nextKey`, else its `keyId`; any registered key for the first), so neither a key
 * registered beside the chain nor a retired one signs on. The second step of the unit `ledger-guard`.
 */

/** The signed text as before, a rotation's `nextKey` in its place among the sorted keys (between lastPosition and prev). */
const signedText = `
create or replace function ledger_checkpoint_signed_text(c json) returns text
language plpgsql immutable as $$
declare
  j jsonb;
  rotation boolean;
  members int := 11;
begin
  j := c::jsonb;
  if jsonb_typeof(j) is distinct from 'object' then
    return null;
  end if;
  rotation := j ? 'nextKey';
  if rotation then
    members := 13; -- nextKey and nextKeySignature
  end if;
  if (select count(*) from jsonb_object_keys(j)) <> members
     or not j ?& array['v', 'seq', 'from', 'to', 'events', 'root', 'prev', 'at', 'lastPosition', 'keyId', 'signature']
     or (rotation and not (j ? 'nextKeySignature'))
     or (rotation and (jsonb_typeof(j->'nextKey') <> 'string' or jsonb_typeof(j->'nextKeySignature') <> 'string'
                       or j->>'nextKey' !~ '^MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=$'))
     or j->'v' <> '1'::jsonb
     or exists (select from unnest(array['seq', 'from', 'to', 'events']) k
                 where jsonb_typeof(j->k) <> 'number' or (j->>k)::numeric not between 0 and 9007199254740991
                    or (j->>k)::numeric <> trunc((j->>k)::numeric))
     or exists (select from unnest(array['root', 'prev', 'at', 'lastPosition', 'keyId', 'signature']) k
                 where jsonb_typeof(j->k) <> 'string')
     or j->>'root' !~ '^[0-9a-f]{64}$' or j->>'prev' !~ '^[0-9a-f]{64}$'
  then
    return null;
  end if;
  return 'ledger-checkpoint:v1:{"at":' || to_json(j->>'at')::text
    || ',"events":' || (j->>'events')::numeric::bigint
    || ',"from":' || (j->>'from')::numeric::bigint
    || ',"keyId":' || to_json(j->>'keyId')::text
    || ',"lastPosition":' || to_json(j->>'lastPosition')::text
    || case when rotation then ',"nextKey":' || to_json(j->>'nextKey')::text else '' end
    || ',"prev":' || to_json(j->>'prev')::text
    || ',"root":' || to_json(j->>'root')::text
    || ',"seq":' || (j->>'seq')::numeric::bigint
    || ',"to":' || (j->>'to')::numeric::bigint
    || ',"v":1}';
exception when others then
  return null; -- not JSON jsonb takes (a \\u0000 in a string)
end $$;`;

const keyIdOf = (base64: string) => `left(encode(sha256(decode(${base64}, 'base64')), 'hex'), 16)`;
const verified = (publicKey: string, signature: string) =>
  `(${signature} ~ '^[A-Za-z0-9+/]{86}==$'
       and ledger_ed25519_verify(substring(decode(${publicKey}, 'base64') from 13), convert_to(signed, 'UTF8'), decode(${signature}, 'base64')))`;

const appendCheckpoints = (refused: string) => `
create or replace function ledger_append_checkpoints(lines json[]) returns void
language plpgsql security definer as $$
declare
  line json;
  j jsonb;
  signed text;
  last record;
  next_seq bigint := 0;
  prev text := repeat('0', 64);
  next_from numeric := 0;
  chain_key text;
  key text;
begin
  -- one writer at a time: the last checkpoint is read, then the next one written
  lock table ledger_checkpoints in share row exclusive mode;
  foreach line in array lines loop
    signed := ledger_checkpoint_signed_text(line);
    if signed is null then
      raise exception 'ledger checkpoint refused: not a well-formed checkpoint' using errcode = '${refused}';
    end if;
    j := line::jsonb;
    chain_key := null;
    select seq, checkpoint::jsonb as c into last from ledger_checkpoints order by seq desc limit 1;
    if found then
      prev := ledger_checkpoint_signed_text(last.c::json);
      if prev is null then
        raise exception 'ledger checkpoint refused: checkpoint row % is malformed, nothing is added after it', last.seq
          using errcode = '${refused}';
      end if;
      prev := encode(sha256(convert_to(prev, 'UTF8')), 'hex');
      next_seq := last.seq + 1;
      next_from := (last.c->>'to')::numeric;
      chain_key := case when last.c ? 'nextKey' then ${keyIdOf("last.c->>'nextKey'")} else last.c->>'keyId' end;
    end if;
    if (j->>'seq')::numeric <> next_seq or j->>'prev' <> prev or (j->>'from')::numeric <> next_from
       or (j->>'to')::numeric - (j->>'from')::numeric <> (j->>'events')::numeric then
      raise exception 'ledger checkpoint refused: seq % is not the next checkpoint (seq %, from %, prev %)',
        j->>'seq', next_seq, next_from, left(prev, 16) using errcode = '${refused}';
    end if;
    select k.public_key into key from ledger_keys k where k.key_id = j->>'keyId';
    if key is null then
      raise exception 'ledger checkpoint refused: key % is not registered', j->>'keyId' using errcode = '${refused}';
    end if;
    if chain_key is not null and j->>'keyId' <> chain_key then
      raise exception 'ledger checkpoint refused: seq % is signed by key %, the chain''s key is %: a key changes only by a rotation checkpoint',
        next_seq, j->>'keyId', chain_key using errcode = '${refused}';
    end if;
    if not ${verified('key', "j->>'signature'")} then
      raise exception 'ledger checkpoint refused: the signature of seq % does not verify with key %', next_seq, j->>'keyId'
        using errcode = '${refused}';
    end if;
    if j ? 'nextKey' then
      if not ${verified("j->>'nextKey'", "j->>'nextKeySignature'")} then
        raise exception 'ledger checkpoint refused: the nextKeySignature of seq % does not verify with its nextKey', next_seq
          using errcode = '${refused}';
      end if;
      insert into ledger_keys (key_id, public_key) values (${keyIdOf("j->>'nextKey'")}, j->>'nextKey')
        on conflict (key_id) do nothing;
    end if;
    insert into ledger_checkpoints (seq, checkpoint) values (next_seq, line);
  end loop;
end $$;`;

/** The rotation checkpoints, few among a year's half million: what the published keys are read from. */
const rotationsIndex = `
create index if not exists ledger_checkpoints_rotations on ledger_checkpoints (seq)
  where strpos(checkpoint::text, '"nextKey"') > 0;`;

/** The unit's second step: both functions replaced (their search_path pinned again by `pinSearchPath`) and the index. */
export const keyRotationStep = (refused: string, pinSearchPath: string): string =>
  [signedText, appendCheckpoints(refused), rotationsIndex, pinSearchPath].join('\n');

/** Where the rotation checkpoints are found by the index above. */
export const rotationCheckpointsWhere = `strpos(checkpoint::text, '"nextKey"') > 0`;
