/**
 * Headers for documents a browser renders (the web console, and any other HTML page the server
 * serves): a Content-Security-Policy, no framing, no MIME sniffing, a referrer policy. Generic on
 * purpose: each page passes the directives it needs on top of the strict default.
 */

/** Directive name → sources, e.g. `{ "img-src": ["'self'", "data:"] }`. */
export type CspDirectives = Record<string, readonly string[]>;

/**
 * Same-origin everything, no inline script or style, no plugins, no <base> rewriting, forms only to
 * this origin, and no embedding in frames (clickjacking).
 */
export const STRICT_CSP: CspDirectives = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'"],
  "font-src": ["'self'"],
  "connect-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
};

export function contentSecurityPolicy(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}

/**
 * The security headers of an HTML page: CSP (STRICT_CSP with `overrides` replacing whole
 * directives), `X-Frame-Options` for browsers that predate frame-ancestors, `nosniff`, a referrer
 * policy that keeps paths inside this origin, and an opener policy that isolates the window.
 * @example
 * for (const [name, value] of Object.entries(pageSecurityHeaders())) response.headers.set(name, value);
 */
export function pageSecurityHeaders(overrides: CspDirectives = {}): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy({ ...STRICT_CSP, ...overrides }),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
  };
}
