"""The server driven by Python's authlib, a client nobody here wrote, as an integrator would use it.

Usage: python authlib_check.py <base URL>. Creates its own user and clients through the API, runs
each check, prints one line per check and a closing "interop: N passed, N failed".
"""

import html.parser
import secrets
import sys
import traceback
from urllib.parse import parse_qs, urljoin, urlparse

import requests
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.jwk import KeySet

BASE = sys.argv[1].rstrip("/")
EMAIL = f"authlib-{secrets.token_hex(4)}@example.com"
PASSWORD = "authlib-password"
REDIRECT_URI = "https://authlib.example.com/callback"
TIMEOUT = 10


class Forms(html.parser.HTMLParser):
    """The hidden and named inputs of every form on a page."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action"), "fields": {}})
        elif tag == "input" and self.forms and attrs.get("name"):
            self.forms[-1]["fields"][attrs["name"]] = attrs.get("value", "")


def forms_of(page):
    parser = Forms()
    parser.feed(page)
    return parser.forms


def api(method, path, **kwargs):
    res = requests.request(method, BASE + path, timeout=TIMEOUT, **kwargs)
    res.raise_for_status()
    return res.json() if res.content else None


def setup():
    api("POST", "/users", json={"email": EMAIL, "password": PASSWORD, "firstName": "Ada", "lastName": "Byron"})
    jwt_token = api("POST", "/auth", json={"email": EMAIL, "password": PASSWORD})["accessToken"]
    bearer = {"Authorization": f"Bearer {jwt_token}"}
    client = api(
        "POST",
        "/oauth/clients",
        headers=bearer,
        json={
            "name": "authlib",
            "website": "https://authlib.example.com",
            "redirect_uri": REDIRECT_URI,
            "grants": ["authorization_code", "refresh_token", "password", "client_credentials"],
        },
    )
    public = api(
        "POST",
        "/oauth/register",
        headers=bearer,
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none", "client_name": "authlib public"},
    )
    return client, public


def signed_in_browser():
    """A requests session signed in through the /login form, as a browser would be."""
    browser = requests.Session()
    page = browser.get(BASE + "/login", timeout=TIMEOUT)
    fields = forms_of(page.text)[0]["fields"]
    res = browser.post(
        BASE + "/login",
        data={**fields, "email": EMAIL, "password": PASSWORD},
        allow_redirects=False,
        timeout=TIMEOUT,
    )
    assert res.status_code == 303, f"sign-in answered {res.status_code}"
    return browser


def approve(browser, authorization_url):
    """Opens the authorization URL, approves on the consent page, returns the callback's query."""
    res = browser.get(authorization_url, allow_redirects=False, timeout=TIMEOUT)
    if res.status_code == 200:
        form = next(form for form in forms_of(res.text) if "_csrf" in form["fields"])
        res = browser.post(
            urljoin(BASE + "/", form["action"]),
            data={**form["fields"], "decision": "approve"},
            allow_redirects=False,
            timeout=TIMEOUT,
        )
    assert res.status_code in (302, 303), f"authorization answered {res.status_code}: {res.text[:200]}"
    location = res.headers["Location"]
    assert location.startswith(REDIRECT_URI), location
    return {key: values[0] for key, values in parse_qs(urlparse(location).query).items()}


def verified_id_token(metadata, id_token, client_id, nonce):
    """Verified with joserfc (authlib's JOSE library) against the published keys."""
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=TIMEOUT).json())
    token = jwt.decode(id_token, keys, algorithms=metadata["id_token_signing_alg_values_supported"])
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": metadata["issuer"]},
        aud={"essential": True, "value": client_id},
        nonce={"essential": True, "value": nonce},
        sub={"essential": True},
        exp={"essential": True},
    ).validate(token.claims)
    assert token.header.get("kid"), token.header
    return token.claims


def main():
    client, public = setup()
    metadata = requests.get(BASE + "/.well-known/openid-configuration", timeout=TIMEOUT).json()
    checks = []

    def check(name):
        def register(fn):
            checks.append((name, fn))
            return fn

        return register

    @check("discovery: issuer and endpoints")
    def _():
        assert metadata["issuer"] == BASE, metadata["issuer"]
        for field in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "registration_endpoint",
                      "revocation_endpoint", "introspection_endpoint", "end_session_endpoint", "device_authorization_endpoint"):
            assert metadata[field].startswith(BASE), field
        oauth = requests.get(BASE + "/.well-known/oauth-authorization-server", timeout=TIMEOUT).json()
        assert oauth["issuer"] == metadata["issuer"]

    for method in ("client_secret_basic", "client_secret_post"):

        @check(f"client_credentials with {method}")
        def _(method=method):
            session = OAuth2Session(client["client_id"], client["client_secret"], token_endpoint_auth_method=method)
            token = session.fetch_token(metadata["token_endpoint"], grant_type="client_credentials")
            assert token["token_type"].lower() == "bearer" and token["access_token"]
            assert "refresh_token" not in token

    @check("client_credentials for this server's own APIs: an RFC 9068 JWT verified against the JWKS, taken by the catalogue")
    def _():
        session = OAuth2Session(client["client_id"], client["client_secret"])
        token = session.fetch_token(metadata["token_endpoint"], grant_type="client_credentials", resource=metadata["issuer"])
        keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=TIMEOUT).json())
        access = jwt.decode(token["access_token"], keys, algorithms=["ES256", "RS256"])
        assert access.header.get("typ") == "at+jwt", access.header
        jwt.JWTClaimsRegistry(
            iss={"essential": True, "value": metadata["issuer"]},
            aud={"essential": True, "value": metadata["issuer"]},
            sub={"essential": True, "value": client["client_id"]},
            client_id={"essential": True, "value": client["client_id"]},
            jti={"essential": True},
            exp={"essential": True},
        ).validate(access.claims)
        products = requests.get(BASE + "/api/v1/products", headers={"Authorization": f"Bearer {token['access_token']}"}, timeout=TIMEOUT)
        assert products.status_code == 200, products.text[:200]

    @check("password grant, refresh, and the rotated refresh token refused")
    def _():
        session = OAuth2Session(client["client_id"], client["client_secret"], scope="read")
        token = session.fetch_token(metadata["token_endpoint"], username=EMAIL, password=PASSWORD)
        first_refresh = token["refresh_token"]
        refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=first_refresh)
        assert refreshed["access_token"] != token["access_token"]
        replay = requests.post(
            metadata["token_endpoint"],
            data={"grant_type": "refresh_token", "refresh_token": first_refresh},
            auth=(client["client_id"], client["client_secret"]),
            timeout=TIMEOUT,
        )
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant", replay.text

    @check("code flow with PKCE and nonce: ID token verified against the JWKS, userinfo, revoke, introspect")
    def _():
        browser = signed_in_browser()
        session = OAuth2Session(
            client["client_id"], client["client_secret"], scope="openid profile email read", redirect_uri=REDIRECT_URI,
            code_challenge_method="S256",
        )
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(16)
        url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
        callback = approve(browser, url)
        assert callback["state"] == state and callback["iss"] == metadata["issuer"], callback
        token = session.fetch_token(metadata["token_endpoint"], code=callback["code"], code_verifier=verifier)
        claims = verified_id_token(metadata, token["id_token"], client["client_id"], nonce)
        # OIDC Core 5.4: with an access token, the scopes' claims come from userinfo, not the ID token.
        assert claims["acr"] == "1" and "email" not in claims, claims
        userinfo = session.get(metadata["userinfo_endpoint"], timeout=TIMEOUT).json()
        assert userinfo["sub"] == claims["sub"] and userinfo["email"] == EMAIL and userinfo["name"] == "Ada Byron", userinfo
        session.revoke_token(metadata["revocation_endpoint"], token=token["access_token"], token_type_hint="access_token")
        introspected = session.introspect_token(metadata["introspection_endpoint"], token=token["access_token"]).json()
        assert introspected == {"active": False}, introspected

    @check("public client (auth method none): PKCE required, then tokens")
    def _():
        browser = signed_in_browser()
        session = OAuth2Session(
            public["client_id"], scope="openid", redirect_uri=REDIRECT_URI, token_endpoint_auth_method="none",
            code_challenge_method="S256",
        )
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(16)
        url, _state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
        code = approve(browser, url)["code"]
        without_verifier = requests.post(
            metadata["token_endpoint"],
            data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "client_id": public["client_id"]},
            timeout=TIMEOUT,
        )
        assert without_verifier.status_code in (400, 401), without_verifier.text
        # The refused exchange spent nothing: the same code still works with its verifier.
        token = session.fetch_token(metadata["token_endpoint"], code=code, code_verifier=verifier)
        verified_id_token(metadata, token["id_token"], public["client_id"], nonce)

    passed = failed = 0
    for name, fn in checks:
        try:
            fn()
            passed += 1
            print(f"ok   {name}")
        except Exception:  # noqa: BLE001 - every failure is reported, then counted
            failed += 1
            print(f"FAIL {name}\n{traceback.format_exc()}")
    print(f"interop: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
