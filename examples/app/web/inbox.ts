/**
 * The inbox page (/inbox): the emails the backend would have sent, newest first, with their links
 * and codes (the backend keeps them in memory in place of an email service).
 */
import { h, section, show, time } from './dom.js';

interface Message {
  readonly to: string;
  readonly subject: string;
  readonly link?: string;
  readonly code?: string;
  readonly sentAt: number;
}

export async function inboxView(): Promise<void> {
  const { messages } = (await (await fetch('/api/inbox')).json()) as { messages: Message[] };
  const items = messages.map((m) =>
    h(
      'li',
      {},
      h('strong', {}, m.subject),
      h('span', {}, ` to ${m.to}, ${time(m.sentAt)}`),
      m.code !== undefined && h('p', {}, 'Code: ', h('code', {}, m.code)),
      m.link !== undefined && h('p', {}, h('a', { href: m.link }, m.link)),
    ),
  );
  show(
    h('h1', {}, 'Inbox'),
    h(
      'div',
      { class: 'cards' },
      section(
        'inbox-title',
        'Emails the app sent',
        items.length > 0 ? h('ul', { class: 'inbox' }, ...items) : h('p', {}, 'No email yet.'),
      ),
    ),
  );
}
