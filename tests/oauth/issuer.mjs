// A real OAuth 2 authorization server for the resource server's tests: oauth2-mock-server
// (npm, pinned in package.json), on a free loopback port, with its own endpoints (OpenID
// discovery, JWKS, token) and a few of the tests' own, for tokens its token endpoint would
// not issue:
// - POST /test/token {aud, scope, sub, expires_in, not_before_in, kid, iss}: a token signed
//   with the server's key `kid` (its first key by default), with those claims; `iss`
//   replaces the issuer, `aud` may be absent.
// - POST /test/rotate {alg}: a new key (RS256 by default), published at once; answers its kid.
// - POST /test/forged {aud}: a token signed with a key the server does not publish, under
//   the id of one it does.
// - POST /test/hs256 {aud}: a token MACed with the server's public key as the secret.
// - POST /test/none {aud}: a token with `alg: none` and no signature.
// Opaque tokens and their introspection (RFC 7662), in the block at the end:
// - POST /test/opaque {scope, sub, aud, iss, expires_in, active}: a random token that is no
//   JWT, remembered with those claims (`active` true unless given, `iss` the server's
//   unless given, `aud`, `scope` and `sub` only when given).
// - POST /test/introspect: the introspection endpoint, which the OpenID metadata names as
//   `introspection_endpoint`. It answers through oauth2-mock-server's own `/introspect`
//   handler (its `beforeIntrospect` event), after reading the form body, which that
//   handler does not: the claims of an active token /test/opaque issued, {active: false}
//   for any other. The caller must authenticate as the client
//   `mcp-resource-server` with the secret `s3cret:with/odd+chars` (client_secret_basic,
//   both form-urlencoded first, RFC 6749 §2.3.1); any other gets 401 invalid_client.
// - GET /test/introspections: {count}, how many introspection requests came so far.
// Prints one line when listening: {"issuer": URL}.
import { OAuth2Server } from 'oauth2-mock-server';
import { SignJWT, generateKeyPair, exportJWK, importJWK } from 'jose';

const server = new OAuth2Server();
const first = await server.issuer.keys.generate('RS256', { kid: 'key-1' });
let rotated = 1;

// The private JWK of `kid`, from the server's store.
const privateKey = (kid) => {
  const key = server.issuer.keys.get(kid);
  if (key === undefined) throw new Error(`no key ${kid}`);
  return key;
};

const now = () => Math.floor(Date.now() / 1000);

const claims = (body) => {
  const payload = {
    iss: body.iss ?? server.issuer.url,
    iat: now(),
    exp: now() + Number(body.expires_in ?? 3600),
    nbf: now() + Number(body.not_before_in ?? -10),
    client_id: 'tests',
  };
  if (body.aud !== undefined) payload.aud = body.aud;
  if (body.scope !== undefined) payload.scope = body.scope;
  if (body.sub !== undefined) payload.sub = body.sub;
  return payload;
};

const reply = (res, status, body) => {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
};

const route = (path, make) =>
  server.service.addRoute('POST', path, async (req, res) => {
    try {
      reply(res, 200, await make(req.body ?? {}));
    } catch (err) {
      reply(res, 500, { error: String(err) });
    }
  });

route('/test/token', async (body) => {
  const jwk = privateKey(body.kid ?? first.kid);
  const token = await new SignJWT(claims(body))
    .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: 'at+jwt' })
    .sign(await importJWK(jwk));
  return { access_token: token };
});

route('/test/rotate', async (body) => {
  rotated += 1;
  const jwk = await server.issuer.keys.generate(body.alg ?? 'RS256', { kid: `key-${rotated}` });
  return { kid: jwk.kid };
});

route('/test/forged', async (body) => {
  const { privateKey: stranger } = await generateKeyPair('RS256');
  const token = await new SignJWT(claims(body))
    .setProtectedHeader({ alg: 'RS256', kid: first.kid })
    .sign(stranger);
  return { access_token: token };
});

route('/test/hs256', async (body) => {
  const published = server.issuer.keys.toJSON()[0];
  const secret = new TextEncoder().encode(JSON.stringify(published));
  const token = await new SignJWT(claims(body))
    .setProtectedHeader({ alg: 'HS256', kid: first.kid })
    .sign(secret);
  return { access_token: token };
});

route('/test/none', async (body) => {
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return { access_token: `${part({ alg: 'none', kid: first.kid })}.${part(claims(body))}.` };
});

await server.start(0, '127.0.0.1');
server.issuer.url = `http://127.0.0.1:${server.address().port}`;
console.log(JSON.stringify({ issuer: server.issuer.url }));

const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The test that started it is gone: so is it.
process.stdin.on('end', stop);
process.stdin.resume();

// ---- Opaque tokens and token introspection (RFC 7662) ---------------------------------
// Registered in the same turn as the `issuer` line is printed, so before any request comes.
import { randomBytes } from 'node:crypto';

const INTROSPECTING_CLIENT = { id: 'mcp-resource-server', secret: 's3cret:with/odd+chars' };
const opaque = new Map();
let introspections = 0;

route('/test/opaque', async (body) => {
  const token = randomBytes(24).toString('base64url');
  const answer = {
    active: body.active ?? true,
    iss: body.iss ?? server.issuer.url,
    exp: now() + Number(body.expires_in ?? 3600),
    iat: now(),
    client_id: 'tests',
    token_type: 'Bearer',
  };
  for (const claim of ['aud', 'scope', 'sub']) {
    if (body[claim] !== undefined) answer[claim] = body[claim];
  }
  opaque.set(token, answer);
  return { access_token: token };
});

// `Authorization: Basic …` of the introspecting client: id and secret form-urlencoded,
// joined by a colon, in base64.
const formDecoded = (text) => decodeURIComponent(text.replace(/\+/g, ' '));
const isIntrospectingClient = (authorization) => {
  const [scheme, encoded] = (authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || encoded === undefined) return false;
  const pair = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) return false;
  try {
    return formDecoded(pair.slice(0, colon)) === INTROSPECTING_CLIENT.id
      && formDecoded(pair.slice(colon + 1)) === INTROSPECTING_CLIENT.secret;
  } catch {
    return false;
  }
};

server.service.on('beforeIntrospect', (response, req) => {
  introspections += 1;
  if (!isIntrospectingClient(req.headers.authorization)) {
    response.statusCode = 401;
    response.body = { error: 'invalid_client' };
    return;
  }
  // `req.body` is read at /test/introspect; the library's own /introspect leaves it unread.
  const known = opaque.get(req.body?.token);
  response.body = known === undefined ? { active: false } : known.active ? known : { active: false };
});

server.service.addRoute('POST', '/test/introspect', (req, res) => server.service.introspectHandler(req, res));

server.service.addRoute('GET', '/test/introspections', (req, res) => reply(res, 200, { count: introspections }));

server.service.on('beforeWellKnownOpenIdConfiguration', (response) => {
  response.body.introspection_endpoint = `${server.issuer.url}/test/introspect`;
  response.body.introspection_endpoint_auth_methods_supported = ['client_secret_basic'];
});
