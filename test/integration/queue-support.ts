/**
 * Driving a queue worker by hand (not a test file): receive what a queue holds, build the SQS
 * event Lambda's event source would, invoke, and delete what the handler did not list as failed.
 */
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

export function queueDriver(sqs: SQSClient) {
  async function receiveAll(queueUrl: string, atLeast: number, timeoutMs = 10_000): Promise<Message[]> {
    const out: Message[] = [];
    const deadline = Date.now() + timeoutMs;
    while (out.length < atLeast && Date.now() < deadline) {
      const res = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      out.push(...(res.Messages ?? []));
    }
    return out;
  }

  /** An SQS event of these messages, as Lambda's event source builds it. */
  function eventOf(messages: Message[]): SQSEvent {
    return {
      Records: messages.map(
        (m) =>
          ({
            messageId: m.MessageId,
            receiptHandle: m.ReceiptHandle,
            body: m.Body,
            attributes: { ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1' },
            messageAttributes: Object.fromEntries(
              Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
                k,
                { dataType: v.DataType, stringValue: v.StringValue, stringListValues: [], binaryListValues: [] },
              ]),
            ),
            eventSource: 'aws:sqs',
          }) as unknown as SQSRecord,
      ),
    };
  }

  /** Invokes a queue worker on these messages and deletes those it did not list, as Lambda's event source does. */
  async function invoke(
    handler: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>,
    queueUrl: string,
    messages: Message[],
  ) {
    const answer = await handler(eventOf(messages));
    const failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
    for (const m of messages.filter((m) => !failed.has(m.MessageId as string))) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
    return answer;
  }

  return { receiveAll, eventOf, invoke };
}
