/**
 * The example's stand-in for an email service: every email the SDK would send (password reset and
 * verification links, passwordless codes and links, passkey recovery links) is kept in memory and
 * shown on the app's own /inbox page, newest first. A real app gives the recipes an SMTP or
 * provider service instead (supertokens-node's `emailDelivery`). Nothing of a message is logged.
 */

export interface Message {
  readonly to: string;
  readonly subject: string;
  /** The link the email carries, if any. */
  readonly link?: string;
  /** The one-time code the email carries, if any (passwordless sign-in). */
  readonly code?: string;
  readonly sentAt: number;
}

/** What the recipes hand to `emailDelivery.service.sendEmail` (the fields the example shows). */
export type Email =
  | { type: 'PASSWORD_RESET'; user: { email: string }; passwordResetLink: string }
  | { type: 'EMAIL_VERIFICATION'; user: { email: string }; emailVerifyLink: string }
  | { type: 'PASSWORDLESS_LOGIN'; email: string; userInputCode?: string; urlWithLinkCode?: string }
  | { type: 'RECOVER_ACCOUNT'; user: { email: string }; recoverAccountLink: string };

/** The newest messages kept; older ones are dropped. */
const KEPT = 100;

export class Inbox {
  private readonly messages: Message[] = [];

  constructor(private readonly onNewMessage: (message: Message) => void = () => {}) {}

  deliver(email: Email): void {
    const message = toMessage(email);
    this.messages.unshift(message);
    this.messages.length = Math.min(this.messages.length, KEPT);
    this.onNewMessage(message);
  }

  /** Newest first. */
  list(): readonly Message[] {
    return this.messages;
  }

  /** The `emailDelivery` setting every recipe of the example takes. */
  emailDelivery() {
    return { service: { sendEmail: async (input: Email) => this.deliver(input) } };
  }
}

function toMessage(email: Email): Message {
  const sentAt = Date.now();
  switch (email.type) {
    case 'PASSWORD_RESET':
      return { to: email.user.email, subject: 'Reset your password', link: email.passwordResetLink, sentAt };
    case 'EMAIL_VERIFICATION':
      return { to: email.user.email, subject: 'Verify your email', link: email.emailVerifyLink, sentAt };
    case 'PASSWORDLESS_LOGIN':
      return {
        to: email.email,
        subject: 'Your sign-in code',
        ...(email.urlWithLinkCode ? { link: email.urlWithLinkCode } : {}),
        ...(email.userInputCode ? { code: email.userInputCode } : {}),
        sentAt,
      };
    case 'RECOVER_ACCOUNT':
      return { to: email.user.email, subject: 'Register a new passkey', link: email.recoverAccountLink, sentAt };
  }
}
