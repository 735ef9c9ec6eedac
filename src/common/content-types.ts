// The content types this server sends, each written once: pages, plain text (seed 001's weather
// answers and GET /hello), scripts and stylesheets it serves itself, and JSON documents sent as bytes.
export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';
export const SCRIPT_CONTENT_TYPE = 'text/javascript; charset=utf-8';
export const STYLESHEET_CONTENT_TYPE = 'text/css; charset=utf-8';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
