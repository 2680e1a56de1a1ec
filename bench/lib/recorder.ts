/**
 * The recording middleware the bench adds to the process's shared DocumentClient: every call is
 * recorded with its phase, duration, DynamoDB Local's reported capacity and, when images are on,
 * the units AWS's billing rules give it (billing.ts) from the item images around it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Item, itemSize, writeUnits } from './billing.js';
import {
  type ComputedUnits,
  commandKind,
  INDEX_NAMES,
  INDEXES,
  type RecordedAction,
  type RecordedCall,
  reportedCapacity,
  unprocessedWrites,
  writeActions,
} from './calls.js';
import type { ImageReader } from './item-images.js';
import { keyId } from './item-images.js';

/** What the middleware reads and appends to as calls go by. */
export interface RecordingState {
  readonly calls: RecordedCall[];
  phase: string;
  images: boolean;
}

export function recordCalls(client: DynamoDBDocumentClient, state: RecordingState, reader: ImageReader): void {
  const { images, readUnits } = reader;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const command = context.commandName ?? 'unknown';
      const kind = commandKind(command);
      const phase = state.phase;
      const imaging = state.images && kind !== 'other';
      const copy = structuredClone(input);
      const actions = kind === 'write' ? writeActions(command, input) : [];
      const before = imaging && kind === 'write' ? await images(actions) : new Map<string, Item>();
      const forwarded = kind === 'other' ? args : { ...args, input: { ...input, ReturnConsumedCapacity: 'INDEXES' } };
      const start = performance.now();
      let out: Awaited<ReturnType<typeof next>> | undefined;
      let failure: unknown;
      try {
        out = await next(forwarded);
      } catch (error) {
        failure = error;
      }
      const ms = performance.now() - start;
      const ok = failure === undefined;
      const output = (out?.output ?? {}) as Record<string, unknown>;
      let computed: ComputedUnits | undefined;
      let recordedActions: RecordedAction[] = [];
      if (imaging && kind === 'read') {
        computed = {
          readUnits: ok ? await readUnits(command, input, output) : 0,
          tableWriteUnits: 0,
          indexWriteUnits: Object.fromEntries(INDEX_NAMES.map((n) => [n, 0])),
        };
      } else if (imaging && kind === 'write') {
        const after = ok ? await images(actions) : new Map<string, Item>();
        const skipped = ok ? unprocessedWrites(output) : new Set<string>();
        const transactional = command === 'TransactWriteItemsCommand';
        recordedActions = actions
          .filter((a) => !skipped.has(keyId(a.table, a.key)))
          .map((a) => {
            const id = keyId(a.table, a.key);
            const b = before.get(id);
            // Failed: nothing was written; bill what the write would have stored as far as known.
            const image = ok ? after.get(id) : a.kind === 'Put' ? a.putItem : b;
            const units = writeUnits({ kind: a.kind, transactional, before: b, after: image, ok }, INDEXES);
            const entity = (image ?? b ?? a.putItem)?.entityType;
            return {
              kind: a.kind,
              key: a.key,
              entityType: typeof entity === 'string' ? entity : undefined,
              beforeBytes: itemSize(b),
              afterBytes: a.kind === 'Delete' && ok ? 0 : itemSize(image),
              units,
            };
          });
        computed = {
          readUnits: 0,
          tableWriteUnits: recordedActions.reduce((s, a) => s + a.units.table, 0),
          indexWriteUnits: Object.fromEntries(
            INDEX_NAMES.map((n) => [n, recordedActions.reduce((s, a) => s + (a.units.indexes[n] ?? 0), 0)]),
          ),
        };
      }
      state.calls.push({
        phase,
        command,
        kind,
        input: copy,
        ms,
        ok,
        ...(ok ? {} : { error: (failure as { name?: string }).name ?? String(failure) }),
        computed,
        actions: recordedActions,
        reported: reportedCapacity(output.ConsumedCapacity),
      });
      if (!ok) throw failure;
      return out as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: 'benchRecordCapacity' },
  );
}
