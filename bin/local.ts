/**
 * `npm start`: the core on one machine, no AWS account needed. See bin/local/runtime.ts.
 *
 *   npm start                  data kept under $DATA_DIR (default ./.data)
 *   npm start -- --in-memory   data lost on exit
 */
import { main } from './local/runtime.js';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `The local runtime failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
