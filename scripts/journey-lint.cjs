// The lint rule that keeps sign-in in one place (docs/architecture.md, "The sign-in journey"): outside
// src/sign-in/, no code changes who a browser session belongs to, leaves a pending step, renews the
// session id or records "Signed in". eslint.config.mjs applies it; test/sign-in/journey-boundary.test.ts
// runs it on each way round it.
const JOURNEY_MESSAGE = 'Only the sign-in journey (src/sign-in/journey.service.ts) signs a session in, steps it up or records "Signed in".';

const JOURNEY_ONLY = [
  {
    selector:
      "AssignmentExpression > MemberExpression.left[object.property.name='session'][property.name=/^(userId|amr|authTime|pending|oidcSid)$/]",
    message: JOURNEY_MESSAGE,
  },
  { selector: "CallExpression[callee.property.name='record'] > Literal.arguments[value='signed-in']", message: JOURNEY_MESSAGE },
  { selector: "CallExpression[callee.name='regenerateSession']", message: JOURNEY_MESSAGE },
];

module.exports = { JOURNEY_ONLY, JOURNEY_MESSAGE };
