/** What the server tells the browser before sign-in (`GET /api/public-config`). */
export interface PublicConfig {
  /** The documentation site. */
  docsUrl: string;
  /** The operating system's public source repository. */
  sourceUrl: string;
  /** A public example app repository. */
  exampleAppUrl: string;
  /** Third-party sign-in providers configured on this server, e.g. `google`, `apple`. */
  providers: string[];
  /** The identity service the auth client talks to. */
  identity: {
    /** The project URL (the built-in service is this server's origin). */
    url: string;
    /** Base of the Supabase-compatible auth API (`<url>/auth/v1`). */
    authUrl: string;
    anonKey: string;
  };
}
