// A browser named the way a person recognises it ("Firefox on Linux"), from its User-Agent header:
// the account page's signed-in browsers and activity. Unknown ones keep their own first words.
const BROWSERS: [string, RegExp][] = [
  ['Edge', /\bEdg(e|A|iOS)?\/\d/],
  ['Opera', /\bOPR\/\d/],
  ['Firefox', /\b(Firefox|FxiOS)\/\d/],
  ['Chrome', /\b(Chrome|CriOS|HeadlessChrome)\/\d/],
  ['Safari', /\bVersion\/[\d.]+.*Safari\//],
];
const SYSTEMS: [string, RegExp][] = [
  ['iPhone', /\biPhone\b/],
  ['iPad', /\biPad\b/],
  ['Android', /\bAndroid\b/],
  ['Windows', /\bWindows\b/],
  ['macOS', /\bMac OS X\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['Linux', /\bLinux\b/],
];

/** At most 60 characters. */
export function deviceName(userAgent: string | undefined): string {
  if (!userAgent) return 'Unknown browser';
  const browser = BROWSERS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  if (browser && system) return `${browser} on ${system}`;
  return (browser ?? system ?? userAgent).slice(0, 60);
}
