/**
 * The CDK app: one stage of the core, its settings from CDK context (`-c name=value`; the names
 * and rules are in lib/stage.ts and docs/deploying-aws.md). Nothing else.
 */
import { App } from 'aws-cdk-lib';
import { addStage, ContextError, stageConfigFromContext } from '../lib/stage.js';

const app = new App();
try {
  addStage(
    app,
    stageConfigFromContext((name) => app.node.tryGetContext(name)),
  );
} catch (error) {
  if (!(error instanceof ContextError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
