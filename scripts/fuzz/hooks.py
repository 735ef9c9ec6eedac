"""Schemathesis hooks for `npm run fuzz`: real credentials in every request, and fixtures kept alive.

Every phase (the coverage phase included, which ignores configured parameter values) gets the
values that make a request acceptable: the run's client and secret, its user's email and password,
the session's CSRF tokens. Single-use values are minted fresh: a refresh token works once, so a new
pair is issued before each refresh request. The stateful phase follows links from the lists
(GET /users, GET /oauth/clients) to deletes and password changes; aimed at the run's own account or
client they would end every credential the run relies on, so such a request goes to a throwaway.
The fuzzer still varies everything else.
"""
import os
import re
import uuid
from urllib.parse import parse_qs, urlsplit

import hypothesis.internal.lambda_sources as lambda_sources
import requests
import schemathesis


def _describe_lambda(describe):
    """Hypothesis names a lambda by parsing its source (only for a strategy's repr). Deep in a
    recursion, CPython 3.11's ast.parse can raise SystemError ("AST constructor recursion depth
    mismatch"), which Hypothesis does not expect: one such error failed a whole run on a tool's repr,
    not on anything the server did. The lambda is then described as unknown, as Hypothesis does when
    its source cannot be read."""

    def described(f, *args, **kwargs):
        try:
            return describe(f, *args, **kwargs)
        except SystemError:
            return "lambda: <unknown>"

    return described


lambda_sources._lambda_description = _describe_lambda(lambda_sources._lambda_description)

ENV = os.environ
BASE = ENV["FUZZ_BASE_URL"]
EMAIL, PASSWORD = ENV["FUZZ_EMAIL"], ENV["FUZZ_PASSWORD"]
USER_ID, TARGET_ID, TARGET_EMAIL = ENV["FUZZ_USER_ID"], ENV["FUZZ_TARGET_ID"], ENV["FUZZ_TARGET_EMAIL"]
CONSOLE_ID = ENV["FUZZ_CONSOLE_ID"]
# The accounts the run relies on: an operator's change aimed at one goes to a throwaway person.
OWN_PEOPLE = (USER_ID, TARGET_ID, CONSOLE_ID)
CLIENT = {"client_id": ENV["FUZZ_CLIENT_ID"], "client_secret": ENV["FUZZ_CLIENT_SECRET"]}
# The clients the run relies on (the first is also the operator's): changed, re-keyed or deleted by an
# operator they would end the credentials of every later call, so such a change goes to a throwaway.
OWN_CLIENTS = (ENV["FUZZ_CLIENT_ID"], ENV["FUZZ_REGISTERED_CLIENT_ID"])
JWT = {"Authorization": f"Bearer {ENV['FUZZ_JWT']}"}
AUTHORIZE = {"client_id": ENV["FUZZ_CLIENT_ID"], "redirect_uri": ENV["FUZZ_REDIRECT_URI"]}
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
TOKEN_PATHS = ("/oauth/token", "/v1/oauth/token", "/oauth/revoke", "/oauth/introspect", "/oauth/device_authorization")
AUTHORIZE_PATHS = ("/authorize", "/oauth/authorize", "/v1/oauth/authorize")
GRANTS = {
    "/oauth/token": ("authorization_code", "refresh_token", "password", "client_credentials", DEVICE_GRANT),
    "/v1/oauth/token": ("authorization_code", "refresh_token"),
}
TIMEOUT = 10


def _post(path, **kwargs):
    return requests.post(f"{BASE}{path}", timeout=TIMEOUT, **kwargs).json()


def _oauth_refresh_token(scope=None):
    # Minted with the scope the refresh will ask for: a refresh may narrow a scope, never widen it.
    form = {"grant_type": "password", "username": EMAIL, "password": PASSWORD, **CLIENT}
    if isinstance(scope, str) and scope:
        form["scope"] = scope
    return _post("/oauth/token", data=form).get("refresh_token")


def _approve(query):
    # The consent page keeps the request and names it in its form (`consent`); a consent given before
    # answers the GET at once.
    session = {"sid": ENV["FUZZ_SID"]}
    page = requests.get(f"{BASE}/oauth/authorize", params=query, cookies=session, allow_redirects=False, timeout=TIMEOUT)
    kept = re.search(r'name="consent" value="([^"]+)"', page.text)
    if not kept:
        return page
    form = {"_csrf": ENV["FUZZ_SESSION_CSRF"], "consent": kept.group(1), "decision": "approve"}
    return requests.post(f"{BASE}/oauth/authorize", data=form, cookies=session, allow_redirects=False, timeout=TIMEOUT)


def _authorization_code():
    response = _approve({**AUTHORIZE, "response_type": "code"})
    return parse_qs(urlsplit(response.headers.get("Location", "")).query).get("code", [""])[0]


def _device_authorization():
    return _post("/oauth/device_authorization", data=CLIENT)


def _throwaway_user():
    return _post("/users", json={"email": f"throwaway-{uuid.uuid4().hex}@example.com", "password": "throwaway"})["id"]


def _make_room():
    # An account owns at most 50 clients, and the fuzzer's own registrations fill them: the run's
    # user drops every client but the two the run relies on, a page at a time.
    keep = {CLIENT["client_id"], ENV["FUZZ_REGISTERED_CLIENT_ID"]}
    for _ in range(5):
        listed = requests.get(f"{BASE}/oauth/clients", headers=JWT, params={"limit": 100}, timeout=TIMEOUT).json()
        extra = [client["client_id"] for client in listed if client["client_id"] not in keep]
        if not extra:
            return
        for client_id in extra:
            requests.delete(f"{BASE}/oauth/clients/{client_id}", headers=JWT, timeout=TIMEOUT)


def _room_for_one():
    # Before a registration the fuzzer sends itself: at the cap every one would be refused (403), and a
    # run whose registrations all met it would count the operation as unauthenticated.
    listed = requests.get(f"{BASE}/oauth/clients", headers=JWT, params={"limit": 100}, timeout=TIMEOUT).json()
    if isinstance(listed, list) and len(listed) >= 40:
        _make_room()


def _registered(register):
    answer = register()
    if "client_id" not in answer:
        _make_room()
        answer = register()
    return answer


def _throwaway_client():
    body = {"name": "Throwaway", "website": BASE, "redirect_uri": f"{BASE}/fuzz/throwaway"}
    return _registered(lambda: _post("/oauth/clients", json=body, headers=JWT))["client_id"]


def _registration():
    body = {"redirect_uris": [AUTHORIZE["redirect_uri"]]}
    registered = _registered(lambda: _post("/oauth/register", json=body, headers=JWT))
    return registered["client_id"], registered["registration_access_token"]


def _registration_metadata(body):
    # Addresses the fuzzer invents are refused (RFC 8252 rules); the rest of the metadata stays its own.
    for field in ("redirect_uris", "post_logout_redirect_uris"):
        if isinstance(body.get(field), list):
            body[field] = [f"{BASE}/fuzz/{field}/{index}" for index, _ in enumerate(body[field])]
    if isinstance(body.get("client_uri"), str):
        body["client_uri"] = BASE
    # The combinations the schema cannot express (see its description) are made to agree.
    grants = body.get("grant_types") if isinstance(body.get("grant_types"), list) else ["authorization_code"]
    if body.get("token_endpoint_auth_method") == "none":
        grants = [grant for grant in grants if grant in ("authorization_code", "refresh_token")] or ["authorization_code"]
        if "grant_types" in body:
            body["grant_types"] = grants
    if isinstance(body.get("response_types"), list):
        needs = {"code": "authorization_code", "token": "implicit", "id_token": "implicit", "id_token token": "implicit"}
        body["response_types"] = [kind for kind in body["response_types"] if isinstance(kind, str) and needs.get(kind) in grants]


def _throwaway_grant():
    # A client the run's user approves once, so that revoking it leaves the run's own grant alone.
    client_id = _throwaway_client()
    _approve({"client_id": client_id, "redirect_uri": f"{BASE}/fuzz/throwaway", "response_type": "code"})
    return client_id


def _fill(target, values):
    if isinstance(target, dict):
        target.update(values)


def _token_request(case, path):
    body = case.body if isinstance(case.body, dict) else None
    carrier = body if body is not None or path != "/v1/oauth/token" else case.query
    if carrier is None:
        case.query = carrier = {}
    carrier.update(CLIENT)
    # A request the stateful phase builds from links may come without a grant type.
    if path.endswith("/token") and carrier.get("grant_type") not in GRANTS[path]:
        carrier["grant_type"] = "refresh_token"
    if carrier.get("grant_type") == "password":
        carrier.update({"username": EMAIL, "password": PASSWORD})
    if carrier.get("grant_type") == "refresh_token":
        # The scope may come in the query while the rest is in the form (variant A reads both).
        scope = carrier.get("scope") or (case.query or {}).get("scope")
        carrier["refresh_token"] = _oauth_refresh_token(scope) or carrier.get("refresh_token", "")
    if carrier.get("grant_type") == DEVICE_GRANT:
        carrier["device_code"] = _device_authorization()["device_code"]
    if carrier.get("grant_type") == "authorization_code":
        carrier.update({"code": _authorization_code(), "redirect_uri": AUTHORIZE["redirect_uri"]})
        # The code was issued without PKCE: a verifier, wherever it is sent, would be refused.
        carrier.pop("code_verifier", None)
        if isinstance(case.query, dict):
            case.query.pop("code_verifier", None)
    # Variant A takes a parameter from the query or the form, never from both.
    if carrier is body and isinstance(case.query, dict):
        for name in list(body):
            case.query.pop(name, None)


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    method, path = case.operation.method.upper(), case.operation.path
    params = case.path_parameters if case.path_parameters is not None else {}
    if path == "/users/{userId}":
        if method == "DELETE" and params.get("userId") in (USER_ID, TARGET_ID):
            params["userId"] = _throwaway_user()
        elif method in ("GET", "PUT", "PATCH"):
            params["userId"] = TARGET_ID
            if method == "PUT" or (isinstance(case.body, dict) and "email" in case.body):
                _fill(case.body, {"email": TARGET_EMAIL})
    elif method == "POST" and path == "/users" and isinstance(case.body, dict) and isinstance(case.body.get("email"), str):
        # Every new user needs an address nobody has; the fuzzer's choice of the rest stays.
        case.body["email"] = f"{uuid.uuid4().hex[:12]}.{case.body['email']}" if "@" in case.body["email"] else case.body["email"]
    elif method == "DELETE" and path == "/oauth/clients/{clientId}" and params.get("clientId") == CLIENT["client_id"]:
        params["clientId"] = _throwaway_client()
    elif method == "POST" and path == "/oauth/clients":
        _room_for_one()
    elif method == "POST" and path == "/auth":
        _fill(case.body, {"email": EMAIL, "password": PASSWORD})
    elif method == "POST" and path == "/auth/refresh-token" and isinstance(case.body, dict):
        pair = _post("/auth", json={"email": EMAIL, "password": PASSWORD})
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {pair['accessToken']}"}
        case.body["refreshToken"] = pair["refreshToken"]
    elif path in TOKEN_PATHS:
        _token_request(case, path)
    elif path == "/oauth/par":
        # The run's client pushes a request for its registered redirect URI; the rest is the fuzzer's.
        if not isinstance(case.body, dict):
            case.body = {}
        _fill(case.body, {**CLIENT, **AUTHORIZE})
    elif path in AUTHORIZE_PATHS or path == "/home":
        # The run's own session, whatever a sign-in earlier in the run left in the client's cookie jar.
        case.headers = {**(case.headers or {}), "Cookie": f"sid={ENV['FUZZ_SID']}"}
        if path != "/home" and method == "GET":
            case.query = {**(case.query or {}), **AUTHORIZE}
        elif path != "/home":
            _fill(case.body, {**AUTHORIZE, "_csrf": ENV["FUZZ_SESSION_CSRF"]})
    elif method == "POST" and path == "/oauth/callback-debug":
        # The anonymous form token; the exchange the fuzzer asks for goes to the token endpoint as it is.
        case.headers = {**(case.headers or {}), "Cookie": f"csrf={ENV['FUZZ_CSRF_COOKIE']}"}
        _fill(case.body, {"_csrf": ENV["FUZZ_ANON_CSRF"]})
    elif method == "POST" and path == "/login":
        case.headers = {**(case.headers or {}), "Cookie": f"csrf={ENV['FUZZ_CSRF_COOKIE']}"}
        _fill(case.body, {"_csrf": ENV["FUZZ_ANON_CSRF"], "email": EMAIL, "password": PASSWORD})
    elif method == "POST" and path in (
        "/signup",
        "/forgot-password",
        "/reset-password",
        "/login/verify",
        "/login/verify/passkey",
        "/login/verify/passkey/options",
        "/login/passkey",
        "/login/passkey/options",
        "/login/link",
        "/login/link/cancel",
    ):
        # The anonymous form token; the fields (accounts to create, addresses, links) are the fuzzer's.
        # A body that is no object could carry no token: such a request only ever meets the CSRF check
        # (403), and a run that drew only those for a route would fail as unauthenticated.
        case.headers = {**(case.headers or {}), "Cookie": f"csrf={ENV['FUZZ_CSRF_COOKIE']}"}
        if not isinstance(case.body, dict):
            case.body = {}
        _fill(case.body, {"_csrf": ENV["FUZZ_ANON_CSRF"]})
    elif path.startswith("/account"):
        # The run's session and its token. The current password the fuzzer sends is never the run's
        # (it does not know it), so the run's password stays.
        case.headers = {**(case.headers or {}), "Cookie": f"sid={ENV['FUZZ_SID']}"}
        if method == "POST":
            _fill(case.body, {"_csrf": ENV["FUZZ_SESSION_CSRF"]})
    elif path == "/api/user":
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {ENV['FUZZ_OAUTH_TOKEN']}"}
    elif path.startswith("/admin/api/"):
        # The run's client, which the operator allowed, with its admin-scope token.
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {ENV['FUZZ_ADMIN_TOKEN']}"}
        # The stateful phase follows the people list to its changes (disable, delete, end sessions):
        # aimed at the run's own accounts they would end the session and tokens the run relies on.
        if path.startswith("/admin/api/people/{id}") and method != "GET" and params.get("id") in OWN_PEOPLE:
            params["id"] = _throwaway_user()
        if path.startswith("/admin/api/applications/{clientId}") and method != "GET" and params.get("clientId") in OWN_CLIENTS:
            params["clientId"] = _throwaway_client()
    elif path == "/admin" or path.startswith("/admin/"):
        # The console: its admin's session (a second factor just given) and its token.
        case.headers = {**(case.headers or {}), "Cookie": f"sid={ENV['FUZZ_CONSOLE_SID']}"}
        if method == "POST":
            _fill(case.body, {"_csrf": ENV["FUZZ_CONSOLE_CSRF"]})
            if params.get("id") in OWN_PEOPLE:
                params["id"] = _throwaway_user()
            if path.startswith("/admin/applications/{clientId}") and params.get("clientId") in OWN_CLIENTS:
                params["clientId"] = _throwaway_client()
    elif path == "/oauth/userinfo":
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {ENV['FUZZ_OIDC_TOKEN']}"}
    elif path == "/oauth/register" and method == "POST":
        # The run's seed 000 token, whichever bearer scheme the fuzzer chose (a registration access
        # token is another scheme's): a run once met only 401s here.
        case.headers = {**(case.headers or {}), **JWT}
        _room_for_one()
        if isinstance(case.body, dict):
            _registration_metadata(case.body)
    elif path in ("/device", "/device/decision"):
        # The run's session, and a user code of a fresh device authorization to type.
        case.headers = {**(case.headers or {}), "Cookie": f"sid={ENV['FUZZ_SID']}"}
        if method == "POST":
            _fill(case.body, {"_csrf": ENV["FUZZ_SESSION_CSRF"], "user_code": _device_authorization()["user_code"]})
    elif path == "/oauth/grants/{clientId}":
        # The fuzzer's own Authorization headers would make nearly every revocation a 401.
        case.headers = {**(case.headers or {}), **JWT}
        # Revoking the run's own client would end the tokens and codes every other request relies on.
        if params.get("clientId") == CLIENT["client_id"]:
            params["clientId"] = _throwaway_grant()
    elif path == "/oauth/end-session":
        # A hint or an address the fuzzer invents is always refused; the other parameters stay its own.
        for values in (case.query, case.body):
            if isinstance(values, dict):
                values.pop("id_token_hint", None)
                values.pop("post_logout_redirect_uri", None)
    elif path == "/home/applications/{clientId}/open":
        case.headers = {**(case.headers or {}), "Cookie": f"sid={ENV['FUZZ_SID']}"}
    elif path == "/home/applications/{clientId}/revoke":
        # The run's session and its CSRF token; the client it names is the fuzzer's choice.
        case.headers = {**(case.headers or {}), "Cookie": f"sid={ENV['FUZZ_SID']}"}
        _fill(case.body, {"_csrf": ENV["FUZZ_SESSION_CSRF"]})
        if params.get("clientId") == CLIENT["client_id"]:
            params["clientId"] = _throwaway_grant()
    elif path == "/oauth/register/{clientId}":
        # A delete ends the registration it names: it gets a registration of its own.
        client_id, token = _registration() if method == "DELETE" else (ENV["FUZZ_REGISTERED_CLIENT_ID"], ENV["FUZZ_REGISTRATION_TOKEN"])
        params["clientId"] = client_id
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
