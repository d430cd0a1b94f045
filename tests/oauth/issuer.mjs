// A real OAuth 2 authorization server for the resource server's tests: oauth2-mock-server
// (npm, pinned in package.json), on a free loopback port, with its own endpoints (OpenID
// discovery, JWKS, token) and a few of the tests' own, for tokens its token endpoint would
// not issue:
// - POST /test/token {aud, scope, sub, expires_in, not_before_in, kid, iss}: a token signed
//   with the server's key `kid` (its first key by default), with those claims; `iss`
//   replaces the issuer, `aud` may be absent.
// - POST /test/rotate {alg, kid}: a new key (RS256 by default), published at once; answers its
//   kid. Given the kid of a key there is, it takes that key's place: the old one is withdrawn.
// - POST /test/forged {aud}: a token signed with a key the server does not publish, under
//   the id of one it does.
// - POST /test/hs256 {aud}: a token MACed with the server's public key as the secret.
// - POST /test/none {aud}: a token with `alg: none` and no signature.
// The authorization-code flow as an MCP client runs it (tests/python, with the official
// SDKs), in a block of its own below:
// - POST /register: dynamic client registration (RFC 7591), advertised in the discovery
//   document as `registration_endpoint`; a client registered for `client_secret_basic` (the
//   default) or `client_secret_post` gets a secret, which the token endpoint then requires.
// - /authorize takes registered clients at their registered redirect URIs, with PKCE S256
//   only, and adds the issuer to the redirect (`iss`, RFC 9207, advertised).
// - A code is good once, for the client and redirect URI it was issued to; its access token
//   carries the scope asked for at /authorize and, as `aud`, the token request's `resource`
//   (RFC 8707; else the one given at /authorize). A refresh token keeps that grant, or
//   narrows its scope. Any token request's `resource` becomes its token's `aud`.
// Opaque tokens and their introspection (RFC 7662), in the block at the end:
// - POST /test/opaque {scope, sub, aud, iss, expires_in, not_before_in, active}: a random
//   token that is no JWT, remembered with those claims (`active` true unless given, `iss`
//   the server's unless given, `aud`, `scope` and `sub` only when given, `nbf` only when
//   `not_before_in` is).
// - POST /test/introspect: the introspection endpoint, which the OpenID metadata names as
//   `introspection_endpoint`. It answers through oauth2-mock-server's own `/introspect`
//   handler (its `beforeIntrospect` event), after reading the form body, which that
//   handler does not: the claims of an active token /test/opaque issued, {active: false}
//   for any other. The caller must authenticate as the client
//   `mcp-resource-server` with the secret `s3cret:with/odd+chars` (client_secret_basic,
//   both form-urlencoded first, RFC 6749 §2.3.1); any other gets 401 invalid_client.
// - GET /test/introspections: {count}, how many introspection requests came so far.
// Machine clients and DPoP, in the last block: the client credentials grant of the client
// `machine`, tokens bound to the key of a checked DPoP proof, and GET /test/grants.
// Prints one line when listening: {"issuer": URL}.
import { AssertionError } from 'node:assert';
import { createHash, createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair, exportJWK, importJWK } from 'jose';

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
  const kid = body.kid ?? `key-${rotated}`;
  const jwk = await server.issuer.keys.generate(body.alg ?? 'RS256', { kid });
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

// ---- The authorization-code flow of an MCP client -----------------------------------------
// Registration, authorization and token exchange as a real authorization server checks them
// (see the header). A refused token request is answered 400 by oauth2-mock-server, with the
// reason as its `detail`.


// How a registered client authenticates at the token endpoint (RFC 7591 §2).
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];
// client_id → the client's registered metadata, with its secret if it has one.
const clients = new Map();
// code → what /authorize was asked: client_id, redirect_uri, scope, resource.
const codes = new Map();
// refresh_token → the grant it renews: client_id, scope, resource.
const refreshes = new Map();
// Token requests whose access token is signed, with the grant it carries (an ID token
// signed after it in the same request is left as it is).
const granted = new WeakMap();

const refuse = (message) => {
  throw new AssertionError({ message });
};

// A request parameter given once or more: its values.
const all = (value) => (value === undefined ? [] : [value].flat());

server.service.on('beforeWellKnownOpenIdConfiguration', (response) => {
  const issuer = server.issuer.url;
  Object.assign(response.body, {
    registration_endpoint: `${issuer}/register`,
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    grant_types_supported: [...response.body.grant_types_supported, 'refresh_token'],
    authorization_response_iss_parameter_supported: true,
  });
});

server.service.addRoute('POST', '/register', async (req, res) => {
  const asked = req.body ?? {};
  const wrong = (error, error_description) => reply(res, 400, { error, error_description });
  const uris = asked.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    return wrong('invalid_redirect_uri', 'redirect_uris: at least one is needed');
  }
  for (const uri of uris) {
    if (typeof uri !== 'string' || !URL.canParse(uri) || new URL(uri).hash !== '') {
      return wrong('invalid_redirect_uri', `not an absolute URL without a fragment: ${uri}`);
    }
  }
  const method = asked.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(method)) {
    return wrong('invalid_client_metadata', `token_endpoint_auth_method ${method} is not supported`);
  }
  const client = {
    ...asked,
    redirect_uris: uris,
    token_endpoint_auth_method: method,
    grant_types: asked.grant_types ?? ['authorization_code'],
    response_types: asked.response_types ?? ['code'],
    client_id: randomUUID(),
    client_id_issued_at: now(),
  };
  if (method !== 'none') {
    client.client_secret = randomBytes(32).toString('base64url');
    client.client_secret_expires_at = 0;
  }
  clients.set(client.client_id, client);
  reply(res, 201, client);
});

server.service.on('beforeAuthorizeRedirect', ({ url }, req) => {
  const q = req.query;
  const client = clients.get(q.client_id);
  const problem =
    client === undefined
      ? `unknown client_id ${q.client_id}`
      : !client.redirect_uris.includes(q.redirect_uri)
        ? `redirect_uri ${q.redirect_uri} is not registered`
        : q.code_challenge === undefined || q.code_challenge_method !== 'S256'
          ? 'PKCE with code_challenge_method S256 is required'
          : undefined;
  const code = url.searchParams.get('code');
  if (problem !== undefined) {
    url.searchParams.delete('code');
    url.searchParams.set('error', 'invalid_request');
    url.searchParams.set('error_description', problem);
  } else if (code !== null) {
    codes.set(code, {
      client_id: q.client_id,
      redirect_uri: q.redirect_uri,
      scope: q.scope,
      resource: all(q.resource),
    });
  }
  url.searchParams.set('iss', server.issuer.url);
});

// The client a token request authenticates as, checked against its registration.
const authenticate = (req, clientId) => {
  const client = clients.get(clientId);
  if (client === undefined) refuse(`unknown client_id ${clientId}`);
  const header = req.headers.authorization ?? '';
  const decode = (part) => decodeURIComponent(part.replaceAll('+', ' '));
  let secret;
  if (client.token_endpoint_auth_method === 'client_secret_basic') {
    const [scheme, encoded] = header.split(' ');
    if (scheme?.toLowerCase() !== 'basic' || !encoded) refuse('client_secret_basic: no credentials');
    const [id, given] = Buffer.from(encoded, 'base64').toString().split(':').map(decode);
    if (id !== clientId) refuse('client_secret_basic: another client');
    secret = given;
  } else if (client.token_endpoint_auth_method === 'client_secret_post') {
    secret = req.body.client_secret;
  }
  if (client.client_secret !== undefined && secret !== client.client_secret) {
    refuse('invalid_client: wrong or missing client secret');
  }
};

// The client id a token request names: in the form, or in its Basic credentials.
const requestingClient = (req) => {
  if (req.body.client_id !== undefined) return req.body.client_id;
  const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return undefined;
  return decodeURIComponent(Buffer.from(encoded, 'base64').toString().split(':')[0]);
};

// Scopes as a set of words.
const words = (scope) => new Set((scope ?? '').split(' ').filter((word) => word !== ''));

server.service.on('beforeTokenSigning', (token, req) => {
  if (granted.has(req)) return;
  const body = req.body;
  const resource = all(body.resource);
  let grant;
  if (body.grant_type === 'authorization_code') {
    const asked = codes.get(body.code);
    codes.delete(body.code);
    if (asked === undefined) refuse('invalid_grant: unknown or used code');
    const clientId = requestingClient(req);
    if (clientId !== asked.client_id) refuse('invalid_grant: the code was issued to another client');
    authenticate(req, clientId);
    if (body.redirect_uri !== asked.redirect_uri) refuse('invalid_grant: another redirect_uri');
    if (body.code_verifier === undefined) refuse('invalid_grant: code_verifier is required');
    if (resource.some((uri) => asked.resource.length > 0 && !asked.resource.includes(uri))) {
      refuse('invalid_target: a resource not asked for at /authorize');
    }
    grant = { client_id: clientId, scope: asked.scope, resource: resource.length > 0 ? resource : asked.resource };
  } else if (body.grant_type === 'refresh_token') {
    const held = refreshes.get(body.refresh_token);
    if (held === undefined) refuse('invalid_grant: unknown refresh_token');
    const clientId = requestingClient(req);
    if (clientId !== held.client_id) refuse('invalid_grant: the refresh token was issued to another client');
    authenticate(req, clientId);
    const had = words(held.scope);
    if (![...words(body.scope)].every((scope) => had.has(scope))) {
      refuse('invalid_scope: more than the refresh token was granted');
    }
    grant = { client_id: clientId, scope: body.scope ?? held.scope, resource: resource.length > 0 ? resource : held.resource };
  } else {
    granted.set(req, undefined);
    if (resource.length > 0) token.payload.aud = resource.length === 1 ? resource[0] : resource;
    return;
  }
  granted.set(req, grant);
  token.payload.client_id = grant.client_id;
  if (grant.scope === undefined) delete token.payload.scope;
  else token.payload.scope = grant.scope;
  if (grant.resource.length > 0) {
    token.payload.aud = grant.resource.length === 1 ? grant.resource[0] : grant.resource;
  }
});

server.service.on('beforeResponse', (response, req) => {
  const grant = granted.get(req);
  if (grant === undefined) return;
  if (grant.scope === undefined) delete response.body.scope;
  else response.body.scope = grant.scope;
  if (response.body.refresh_token !== undefined) refreshes.set(response.body.refresh_token, grant);
});
// ---- end of the authorization-code flow --------------------------------------------------

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
  if (body.not_before_in !== undefined) answer.nbf = now() + Number(body.not_before_in);
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

// ---- Machine clients and DPoP (RFC 9449) -------------------------------------------------
// - The client credentials grant of a request that names a client (in the form or in Basic
//   credentials) takes only the client `machine`, with the secret `machine-secret`
//   (client_secret_basic); one that names none is answered as oauth2-mock-server does.
// - A token request with a `DPoP` header gets a token bound to the proof's key (`cnf.jkt`,
//   the RFC 7638 thumbprint of its `jwk`) and `token_type: DPoP`, once the proof is
//   checked: `typ` `dpop+jwt`, ES256, signed by its own `jwk`, `htm` POST, `htu` this token
//   endpoint, `iat` within a minute, and a `jti` not seen before. Any other is refused.
// - The metadata offers DPoP with ES256.
// - GET /test/grants: [{grant_type, client_id, jkt}], each token request granted so far.
const MACHINE_CLIENT = { id: 'machine', secret: 'machine-secret' };
const proofIds = new Set();
const grants = [];
const bound = new WeakSet();

server.service.on('beforeWellKnownOpenIdConfiguration', (response) => {
  response.body.dpop_signing_alg_values_supported = ['ES256'];
});

// The thumbprint of the key a token request's DPoP proof is made with, the proof checked;
// undefined without a proof.
const proven = (req) => {
  const proof = req.headers.dpop;
  if (proof === undefined) return undefined;
  const wrong = (why) => refuse(`invalid_dpop_proof: ${why}`);
  let header;
  let claims;
  try {
    header = decodeProtectedHeader(proof);
    claims = decodeJwt(proof);
  } catch (err) {
    wrong(`not a JWT: ${err}`);
  }
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256') wrong('not an ES256 dpop+jwt');
  const { crv, kty, x, y } = header.jwk ?? {};
  if (kty !== 'EC' || crv !== 'P-256') wrong('its jwk is no P-256 key');
  const [signed, signature] = [proof.slice(0, proof.lastIndexOf('.')), proof.split('.')[2]];
  const key = createPublicKey({ key: { crv, kty, x, y }, format: 'jwk' });
  const good = verify('sha256', Buffer.from(signed), { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'));
  if (!good) wrong('the signature is not its jwk\'s');
  if (claims.htm !== 'POST' || claims.htu !== `${server.issuer.url}/token`) {
    wrong(`made for ${claims.htm} ${claims.htu}`);
  }
  if (typeof claims.iat !== 'number' || Math.abs(now() - claims.iat) > 60) wrong('not fresh');
  if (typeof claims.jti !== 'string' || proofIds.has(claims.jti)) wrong('its jti is used');
  proofIds.add(claims.jti);
  // RFC 7638: the required members, in lexicographic order, without spaces.
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
};

server.service.on('beforeTokenSigning', (token, req) => {
  const body = req.body;
  const clientId = requestingClient(req);
  if (body.grant_type === 'client_credentials' && clientId !== undefined) {
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const pair = scheme?.toLowerCase() === 'basic' && encoded !== undefined
      ? Buffer.from(encoded, 'base64').toString().split(':').map(formDecoded)
      : [];
    if (pair[0] !== MACHINE_CLIENT.id || pair[1] !== MACHINE_CLIENT.secret) {
      refuse(`invalid_client: ${clientId} is not the machine client with its secret`);
    }
    token.payload.client_id = clientId;
    token.payload.sub = clientId;
  }
  const jkt = proven(req);
  if (jkt !== undefined) {
    token.payload.cnf = { jkt };
    bound.add(req);
  }
  grants.push({ grant_type: body.grant_type, client_id: clientId ?? null, jkt: jkt ?? null });
});

server.service.on('beforeResponse', (response, req) => {
  if (bound.has(req)) response.body.token_type = 'DPoP';
});

server.service.addRoute('GET', '/test/grants', (req, res) => reply(res, 200, grants));
