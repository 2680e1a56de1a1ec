/**
 * The import queue's message: one staged user to import. The producer (staging, reconciler) and
 * the consumers (import worker, DLQ consumer) validate with this one schema. Only ids travel
 * through the queue — the user itself, credentials included, stays in the table.
 */
import * as z from 'zod';

export const importMessageSchema = z.object({
  v: z.literal(1),
  appId: z.string().min(1).max(64),
  id: z.string().min(1).max(64),
});

export type ImportMessage = z.infer<typeof importMessageSchema>;

export const importMessage = (appId: string, id: string): ImportMessage => ({ v: 1, appId, id });

/** The publisher port: sends messages or throws once its retries are exhausted. */
export interface ImportPublisher {
  publish(messages: readonly ImportMessage[]): Promise<void>;
}
