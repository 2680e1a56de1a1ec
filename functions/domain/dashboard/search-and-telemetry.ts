/**
 * Two fixed answers the SDK's dashboard asks for (docs/dashboard.md): the search tags and the
 * telemetry id.
 */

/**
 * `GET /user/search/tags`: the fields `GET /<t>/users` filters on (`email`, `phone`, `provider`),
 * which the dashboard's search box offers.
 */
export const SEARCH_TAGS: readonly string[] = ['email', 'phone', 'provider'];

/** `GET /telemetry`: this core never sends telemetry, so it has no telemetry id. */
export const TELEMETRY_OFF = { exists: false } as const;
