// The lint rules that keep sign-in in one place (docs/architecture.md, "The sign-in journey"): outside
// src/sign-in/, no code changes who a browser session belongs to, leaves a pending step, renews the
// session id or records "Signed in"; outside the session middleware and the interaction, no code
// touches req.session at all. eslint.config.mjs applies it; test/sign-in/journey-boundary.test.ts
// runs it on each way round it.
const JOURNEY_MESSAGE = 'Only the sign-in journey (src/sign-in/interaction.ts) signs a session in, steps it up or records "Signed in".';

const JOURNEY_ONLY = [
  {
    selector:
      "AssignmentExpression > MemberExpression.left[object.property.name='session'][property.name=/^(userId|amr|authTime|pending|oidcSid)$/]",
    message: JOURNEY_MESSAGE,
  },
  { selector: "CallExpression[callee.property.name='record'] > Literal.arguments[value='signed-in']", message: JOURNEY_MESSAGE },
  { selector: "CallExpression[callee.name='regenerateSession']", message: JOURNEY_MESSAGE },
];

// Only the session middleware and the interaction read or write the session itself; everyone else asks
// them (session.middleware.ts's functions, the journey's methods).
const SESSION_MESSAGE =
  'Only src/session/session.middleware.ts and src/sign-in/interaction.ts touch req.session: ask them (sessionUserId, sessionSignIn, the journey, ...).';

const SESSION_ONLY = [
  {
    selector: 'MemberExpression[object.name=/^(req|request)$/][property.name=/^(session|sessionID|sessionStore)$/]',
    message: SESSION_MESSAGE,
  },
  {
    selector: 'VariableDeclarator[init.name=/^(req|request)$/] > ObjectPattern > Property[key.name=/^(session|sessionID|sessionStore)$/]',
    message: SESSION_MESSAGE,
  },
];

module.exports = { JOURNEY_ONLY, JOURNEY_MESSAGE, SESSION_ONLY, SESSION_MESSAGE };
