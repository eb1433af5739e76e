/**
 * Ed25519 signature verification (RFC 8032, as OpenSSL checks it: S below the group order, the public key decoded,
 * [S]B - [k]A encoded and compared byte for byte with R) in PL/pgSQL over `numeric`, for the database to check a
 * checkpoint's signature itself: PostgreSQL and pgcrypto have no Ed25519. Slow (tens of milliseconds a signature) and
 * not constant-time, which a verifier of public data needs not be; a checkpoint is signed about once a minute.
 * Points are extended coordinates [X, Y, Z, T] with x = X/Z, y = Y/Z, xy = T/Z.
 */
const p = '57896044618658097711785492504343953926634992332820282019728792003956564819949';
const d = '37095705934669439343138083508754565189542113879843219016388785533085940283555';
const d2 = '16295367250680780974490674513165176452449235426866156013048779062215315747161';
const order = '7237005577332262213973186563042994240857116359379907606001950938285454250989';
const sqrtMinusOne = '19681161376707505956807079304988542015446066515923890162744021073123829784752';
const baseX = '15112221349535400772501151409588531511454012693041857206046113283949847762202';
const baseY = '46316835694926478169428394003475163141307993866256225615783033603165251855960';

export const ed25519Functions = `
-- a little-endian byte string as a number
create or replace function ledger_ed25519_int(b bytea) returns numeric
language plpgsql immutable strict as $$
declare n numeric := 0;
begin
  for i in reverse length(b) - 1 .. 0 loop
    n := n * 256 + get_byte(b, i);
  end loop;
  return n;
end $$;
-- b^e mod p
create or replace function ledger_ed25519_pow(b numeric, e numeric) returns numeric
language plpgsql immutable strict as $$
declare
  p constant numeric := ${p};
  r numeric := 1;
begin
  b := mod(b, p);
  while e > 0 loop
    if mod(e, 2) = 1 then r := mod(r * b, p); end if;
    b := mod(b * b, p);
    e := div(e, 2);
  end loop;
  return r;
end $$;
-- a + b (add-2008-hwcd-3: unified, so it doubles too); coordinates mod p, possibly negative
create or replace function ledger_ed25519_add(a numeric[], b numeric[]) returns numeric[]
language plpgsql immutable strict as $$
declare
  p constant numeric := ${p};
  ca constant numeric := mod((a[2] - a[1]) * (b[2] - b[1]), p);
  cb constant numeric := mod((a[2] + a[1]) * (b[2] + b[1]), p);
  cc constant numeric := mod(mod(a[4] * ${d2}, p) * b[4], p);
  cd constant numeric := mod(2 * a[3] * b[3], p);
begin
  return array[mod((cb - ca) * (cd - cc), p), mod((cd + cc) * (cb + ca), p), mod((cd - cc) * (cd + cc), p), mod((cb - ca) * (cb + ca), p)];
end $$;
-- a point's 32-byte encoding decoded, or null when it is none
create or replace function ledger_ed25519_point(b bytea) returns numeric[]
language plpgsql immutable strict as $$
declare
  p constant numeric := ${p};
  sign int;
  y numeric;
  u numeric;
  v numeric;
  v3 numeric;
  x numeric;
  vx2 numeric;
begin
  if length(b) <> 32 then return null; end if;
  sign := get_byte(b, 31) >> 7;
  y := ledger_ed25519_int(set_byte(b, 31, get_byte(b, 31) & 127));
  if y >= p then return null; end if;
  u := mod(y * y - 1 + p, p);
  v := mod(${d} * y * y + 1, p);
  v3 := mod(v * v * v, p);
  x := mod(u * v3 * ledger_ed25519_pow(u * mod(v3 * v3 * v, p), (p - 5) / 8), p);
  vx2 := mod(v * x * x, p);
  if vx2 <> u then
    if vx2 <> mod(p - u, p) then return null; end if;
    x := mod(x * ${sqrtMinusOne}, p);
  end if;
  if x = 0 and sign = 1 then return null; end if;
  if mod(x, 2) <> sign then x := p - x; end if;
  return array[x, y, 1, mod(x * y, p)];
end $$;
-- whether signature (64 bytes: R, S) is public_key's (32 bytes) over message
create or replace function ledger_ed25519_verify(public_key bytea, message bytea, signature bytea) returns boolean
language plpgsql immutable strict as $$
declare
  p constant numeric := ${p};
  base constant numeric[] := array[${baseX}, ${baseY}, 1, mod(${baseX}::numeric * ${baseY}, p)];
  a numeric[] := ledger_ed25519_point(public_key);
  r bytea;
  s bytea;
  k numeric;
  kb bytea := decode(repeat('00', 32), 'hex');
  ba numeric[];
  acc numeric[] := array[0, 1, 1, 0];
  zinv numeric;
begin
  if a is null or length(signature) <> 64 then return false; end if;
  r := substring(signature from 1 for 32);
  s := substring(signature from 33 for 32);
  if ledger_ed25519_int(s) >= ${order} then return false; end if;
  k := mod(ledger_ed25519_int(sha512(r || public_key || message)), ${order});
  for i in 0 .. 31 loop
    kb := set_byte(kb, i, mod(k, 256)::int);
    k := div(k, 256);
  end loop;
  a := array[p - a[1], a[2], a[3], p - a[4]];
  ba := ledger_ed25519_add(base, a);
  -- [S]B + [k](-A), both scalars below 2^253
  for i in reverse 252 .. 0 loop
    acc := ledger_ed25519_add(acc, acc);
    if get_bit(s, i) = 1 then
      acc := ledger_ed25519_add(acc, case when get_bit(kb, i) = 1 then ba else base end);
    elsif get_bit(kb, i) = 1 then
      acc := ledger_ed25519_add(acc, a);
    end if;
  end loop;
  zinv := ledger_ed25519_pow(mod(acc[3] + p, p), p - 2);
  return mod(mod(acc[2] * zinv, p) + p, p) = ledger_ed25519_int(set_byte(r, 31, get_byte(r, 31) & 127))
     and mod(mod(mod(acc[1] * zinv, p) + p, p), 2) = get_byte(r, 31) >> 7;
end $$;
`;

/** The functions' names: the database's owner keeps them (never handed to the service's role). */
export const ed25519FunctionNames = [
  'ledger_ed25519_int',
  'ledger_ed25519_pow',
  'ledger_ed25519_add',
  'ledger_ed25519_point',
  'ledger_ed25519_verify',
] as const;
