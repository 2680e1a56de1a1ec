import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '#functions/shared/clients.js';

type Item = Record<string, unknown>;

/** Every page of a Query, following LastEvaluatedKey; lets callers act page by page (purges). */
export async function* queryPages(input: QueryCommandInput): AsyncGenerator<Item[]> {
  let startKey: Item | undefined;
  do {
    const out = await getDocumentClient().send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    yield out.Items ?? [];
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

/** Every item a Query matches, across pages. Only for collections known to be small. */
export async function queryAll(input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) items.push(...page);
  return items;
}
