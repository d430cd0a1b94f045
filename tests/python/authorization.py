"""What the OAuth tests of both SDK majors share: the person at the browser, the client's
token store, a record of every request the client's HTTP client sends, and the checks of
what an authorization went through.

The SDKs differ in their HTTP library (httpx for 1.x, httpx2 for 2.x, one API): it is
passed in where one is needed."""

import base64
import hashlib
import json
from urllib.parse import parse_qs, urlsplit

REDIRECT_URI = "http://127.0.0.1:9/callback"
"""The client's redirect URI. Nothing listens there: the browser stops at the redirect."""

CLIENT_NAME = "mcp-runtime OAuth tests"


def _single(query):
    """A query string's parameters, each given once: name → value."""
    parsed = parse_qs(query, keep_blank_values=True)
    assert all(len(values) == 1 for values in parsed.values()), parsed
    return {name: values[0] for name, values in parsed.items()}


class Browser:
    """The person who authorizes the client: opens each authorization URL the client hands
    over (`open`, the SDK's redirect handler) and brings back what the authorization server
    redirected to (`answer`, for the SDK's callback handler)."""

    def __init__(self, http):
        self.http = http
        self.visits = []
        """(the authorization request's parameters, the redirect's parameters), in order."""

    async def open(self, url):
        async with self.http.AsyncClient(follow_redirects=False) as client:
            response = await client.get(url)
        assert response.status_code == 302, (response.status_code, response.text)
        location = response.headers["location"]
        assert location.startswith(f"{REDIRECT_URI}?"), location
        self.visits.append((_single(urlsplit(url).query), _single(urlsplit(location).query)))

    def answer(self):
        """The last redirect's parameters: `code`, `state`, `iss`."""
        assert self.visits, "the client asked for the callback before sending anyone to authorize"
        _, answered = self.visits[-1]
        assert "error" not in answered, answered
        return answered


class Storage:
    """The client's token store, in memory, keeping every token it is given."""

    def __init__(self):
        self.tokens = []
        self.client = None

    async def get_tokens(self):
        return self.tokens[-1] if self.tokens else None

    async def set_tokens(self, tokens):
        self.tokens.append(tokens)

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class Exchange:
    """One request the client sent, and its answer."""

    def __init__(self, response):
        request = response.request
        self.method = request.method
        self.url = str(request.url)
        self.status = response.status_code
        self.challenge = response.headers.get("www-authenticate")
        self.authorization = request.headers.get("authorization")
        content = request.content.decode() if request.content else ""
        kind = request.headers.get("content-type", "")
        if kind.startswith("application/x-www-form-urlencoded"):
            self.body = _single(content)
        elif kind.startswith("application/json") and content:
            self.body = json.loads(content)
        else:
            self.body = content

    def __repr__(self):
        return f"{self.method} {self.url} → {self.status}"


class Traffic:
    """Every request the client's HTTP client sends, the OAuth flow's among them, with its
    answer: pass `hooks` as the client's `event_hooks`."""

    def __init__(self):
        self.exchanges = []

    @property
    def hooks(self):
        return {"response": [self._record]}

    async def _record(self, response):
        self.exchanges.append(Exchange(response))

    def since(self, start, *, resource=None):
        """The exchanges from the one numbered `start` on, as (method, URL, status); without
        the GET of `resource`, the client's listening stream, which may open at any time."""
        return [
            (exchange.method, exchange.url, exchange.status)
            for exchange in self.exchanges[start:]
            if (exchange.method, exchange.url) != ("GET", resource)
        ]


def leaves(error):
    """The errors an exception group holds, however deep; or the error itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def elsewhere(url):
    """Another resource on the origin of `url`: a server given it as its audience is not
    the one a client of `url` means."""
    return url.replace("/mcp", "/elsewhere/mcp")


def check_refused_for_another_resource(traffic, browser, storage, error, *, resource):
    """Checks that a client of `resource` whose server names `elsewhere(resource)` in its
    metadata stopped there, with `error`: before registering, and before anyone was sent to
    authorize."""
    other = elsewhere(resource)
    assert traffic.since(0) == [("POST", resource, 401), ("GET", metadata_url(other), 200)], traffic.exchanges
    assert browser.visits == [] and storage.client is None and storage.tokens == []
    assert any(
        f"Protected resource {other} does not match expected {resource}" in str(leaf) for leaf in leaves(error)
    ), error


def claims(token):
    """The claims of a JWT, unchecked: the server under test checks it."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def s256(verifier):
    """The PKCE S256 challenge of `verifier`."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def metadata_url(resource):
    """Where the server of `resource` publishes its protected resource metadata (RFC 9728)."""
    parts = urlsplit(resource)
    return f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"


def check_first_authorization(traffic, browser, storage, *, issuer, resource, scope, method):
    """Checks the client's way to its first access token, and returns that token's claims:
    refused (401) with a challenge naming the resource metadata and `scope`, it read that
    metadata, then the authorization server's (RFC 8414 first, which this one does not
    serve, then OpenID discovery), registered (RFC 7591) for `method`, sent its user to
    authorize with PKCE S256 and the resource (RFC 8707), exchanged the code with the
    verifier, its client authentication and the resource, and was let in with the token
    (for `resource`, with `scope`). `method` None is the registration's default."""
    assert traffic.since(0)[:7] == [
        ("POST", resource, 401),
        ("GET", metadata_url(resource), 200),
        ("GET", f"{issuer}/.well-known/oauth-authorization-server", 404),
        ("GET", f"{issuer}/.well-known/openid-configuration", 200),
        ("POST", f"{issuer}/register", 201),
        ("POST", f"{issuer}/token", 200),
        ("POST", resource, 200),
    ], traffic.exchanges
    refused, _, _, _, register, token, admitted = traffic.exchanges[:7]
    assert refused.authorization is None
    assert refused.challenge == f'Bearer resource_metadata="{metadata_url(resource)}", scope="{scope}"'

    assert register.body["redirect_uris"] == [REDIRECT_URI], register.body
    assert register.body.get("token_endpoint_auth_method") == method, register.body
    client = storage.client
    assert client is not None and client.client_id, client
    method = method or "client_secret_basic"
    assert client.token_endpoint_auth_method == method
    assert (client.client_secret is None) == (method == "none"), client

    assert len(browser.visits) == 1, browser.visits
    asked, answered = browser.visits[0]
    assert asked["response_type"] == "code"
    assert asked["client_id"] == client.client_id
    assert asked["redirect_uri"] == REDIRECT_URI
    assert asked["code_challenge_method"] == "S256"
    assert asked["resource"] == resource
    assert asked["scope"] == scope
    assert answered["state"] == asked["state"]
    assert answered["iss"] == issuer

    form = token.body
    assert form["grant_type"] == "authorization_code"
    assert form["code"] == answered["code"]
    assert s256(form["code_verifier"]) == asked["code_challenge"]
    assert form["resource"] == resource
    basic = "Basic " + base64.b64encode(f"{client.client_id}:{client.client_secret}".encode()).decode()
    assert (token.authorization == basic) == (method == "client_secret_basic"), token.authorization
    assert form.get("client_secret") == (client.client_secret if method == "client_secret_post" else None)

    assert len(storage.tokens) == 1, storage.tokens
    access = storage.tokens[0].access_token
    assert admitted.authorization == f"Bearer {access}"
    said = claims(access)
    assert said["iss"] == issuer and said["aud"] == resource and said["scope"] == scope, said
    assert said["sub"] == "johndoe" and said["client_id"] == client.client_id, said
    return said


def check_step_up(traffic, browser, storage, *, start, issuer, resource, needed, scope):
    """Checks a step-up, from the exchange numbered `start` on: the call was refused 403
    insufficient_scope naming `needed`; the client, already registered and knowing the
    authorization server, sent its user to authorize again asking for `scope`, exchanged
    the new code, and the call went through with the new token (for `resource`, `scope`)."""
    assert traffic.since(start, resource=resource) == [
        ("POST", resource, 403),
        ("POST", f"{issuer}/token", 200),
        ("POST", resource, 200),
    ], traffic.exchanges[start:]
    refused, token, admitted = [exchange for exchange in traffic.exchanges[start:] if exchange.method == "POST"]
    assert refused.challenge.startswith(f'Bearer error="insufficient_scope", scope="{needed}", '), refused.challenge
    assert f'resource_metadata="{metadata_url(resource)}"' in refused.challenge
    assert len(browser.visits) == 2, browser.visits
    asked, answered = browser.visits[1]
    assert asked["scope"] == scope
    assert asked["resource"] == resource
    assert token.body["code"] == answered["code"]
    assert s256(token.body["code_verifier"]) == asked["code_challenge"]
    assert len(storage.tokens) == 2, storage.tokens
    access = storage.tokens[1].access_token
    assert admitted.authorization == f"Bearer {access}"
    said = claims(access)
    assert said["aud"] == resource and said["scope"] == scope, said
    return said
