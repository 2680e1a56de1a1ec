/**
 * The import queue's message: one staged user to import. The producer (staging, reconciler) and
 * the consumers (import worker, DLQ consumer) validate with this one schema. Only ids travel
 * through the queue — the user itself, credentials included, stays in the table.
 */
// zod's mini build: the same validation for a three-field message, without the full API's methods
// (and their weight) in the bundles of every function that sends or receives one.
import * as z from 'zod/mini';

const bounded = () => z.string().check(z.minLength(1), z.maxLength(64));

export const importMessageSchema = z.object({
  v: z.literal(1),
  appId: bounded(),
  id: bounded(),
});

export type ImportMessage = z.infer<typeof importMessageSchema>;

export const importMessage = (appId: string, id: string): ImportMessage => ({ v: 1, appId, id });

/** The publisher port: sends messages or throws once its retries are exhausted. */
export interface ImportPublisher {
  publish(messages: readonly ImportMessage[]): Promise<void>;
}
