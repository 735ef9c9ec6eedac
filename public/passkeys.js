// The passkey buttons (docs/security.md, Second factors): each button names where to get the
// ceremony's options and where to send the answer; SimpleWebAuthnBrowser (served from this server)
// talks to the authenticator. Without WebAuthn (or without JavaScript) the buttons stay hidden.
(function () {
  'use strict';
  if (!window.PublicKeyCredential || !window.SimpleWebAuthnBrowser) return;
  var webauthn = window.SimpleWebAuthnBrowser;

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().then(function (json) {
        // Asked to confirm who it is first (a step-up, or signing in again): go there and come back.
        if (!res.ok && typeof json.redirect === 'string' && json.redirect.charAt(0) === '/') {
          window.location.assign(json.redirect);
          return new Promise(function () {});
        }
        if (!res.ok) throw new Error(typeof json.error === 'string' ? json.error : 'The passkey was refused.');
        return json;
      });
    });
  }

  document.querySelectorAll('[data-passkey]').forEach(function (button) {
    var form = button.closest('form');
    var status = document.getElementById(button.getAttribute('data-status'));
    var say = function (text) {
      if (status) status.textContent = text;
    };
    form.hidden = false;
    button.hidden = false;
    button.addEventListener('click', function (event) {
      event.preventDefault();
      var csrf = form.querySelector('input[name="_csrf"]').value;
      var name = form.querySelector('input[name="name"]');
      var returnTo = form.querySelector('input[name="return_to"]');
      var register = button.getAttribute('data-passkey') === 'register';
      button.disabled = true;
      say('');
      post(button.getAttribute('data-options'), { _csrf: csrf })
        .then(function (options) {
          return register ? webauthn.startRegistration({ optionsJSON: options }) : webauthn.startAuthentication({ optionsJSON: options });
        })
        .then(function (response) {
          return post(button.getAttribute('data-verify'), {
            _csrf: csrf,
            response: response,
            name: name ? name.value : undefined,
            return_to: returnTo ? returnTo.value : undefined,
          });
        })
        .then(function (result) {
          window.location.assign(result.redirect);
        })
        .catch(function (err) {
          button.disabled = false;
          say(
            err && err.name === 'NotAllowedError'
              ? 'The passkey request was cancelled.'
              : (err && err.message) || 'The passkey did not work.',
          );
        });
    });
  });
})();
