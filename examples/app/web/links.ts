/**
 * The pages an email link or a provider's redirect opens: a new password (/auth/reset-password),
 * the email verification (/auth/verify-email), the passwordless magic link (/auth/verify), a new
 * passkey for a lost one (/auth/webauthn/recover) and the way back from Google
 * (/auth/callback/google). The SDK reads the token or code from the address itself.
 */
import EmailPassword from 'supertokens-web-js/recipe/emailpassword';
import EmailVerification from 'supertokens-web-js/recipe/emailverification';
import Passwordless from 'supertokens-web-js/recipe/passwordless';
import ThirdParty from 'supertokens-web-js/recipe/thirdparty';
import WebAuthn from 'supertokens-web-js/recipe/webauthn';
import { busy, field, h, inputValue, messageLine, say, section, show } from './dom.js';
import { explain, finish } from './sign-in.js';

function page(title: string, ...children: (Node | false)[]): void {
  show(h('h1', {}, title), messageLine(), h('div', { class: 'cards' }, ...children));
}

const toSignIn = () => h('p', {}, h('a', { href: '/auth' }, 'Go to the sign-in page'));

export function resetPasswordView(): void {
  const form = h(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        void busy(form, async () => {
          const result = await EmailPassword.submitNewPassword({
            formFields: [{ id: 'password', value: inputValue(form, 'password') }],
          });
          if (result.status === 'OK') say('Your password is changed: sign in with it.');
          else if (result.status === 'RESET_PASSWORD_INVALID_TOKEN_ERROR')
            say('This link has expired or was used already: ask for a new one.', 'alert');
          else say(explain(result), 'alert');
        });
      },
    },
    field('New password', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Change my password')),
  );
  page('Choose a new password', section('reset-title', 'Reset your password', form, toSignIn()));
}

export async function verifyEmailView(): Promise<void> {
  page('Email verification', section('verify-title', 'Verifying…', toSignIn()));
  const result = await EmailVerification.verifyEmail();
  if (result.status === 'OK') say('Your email is verified.');
  else say('This link has expired or was used already: ask for a new one from your account page.', 'alert');
}

export async function magicLinkView(): Promise<void> {
  page('Signing you in', section('link-title', 'Sign-in link', toSignIn()));
  finish(await Passwordless.consumeCode());
}

export function recoverView(): void {
  const button = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        void busy(button, async () => {
          const token = new URLSearchParams(location.search).get('token') ?? '';
          const result = await WebAuthn.registerCredentialWithRecoverAccount({
            recoverAccountToken: token,
            userContext: {},
          });
          if (result.status === 'OK') say('Your new passkey is registered: sign in with it.');
          else if (result.status === 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR')
            say('This link has expired or was used already: ask for a new one.', 'alert');
          else say(explain(result), 'alert');
        }),
    },
    'Register a new passkey',
  );
  page(
    'Recover your account',
    section('recover-title', 'New passkey', h('div', { class: 'actions' }, button), toSignIn()),
  );
}

export async function providerCallbackView(): Promise<void> {
  page('Signing you in', section('callback-title', 'Back from Google', toSignIn()));
  finish(await ThirdParty.signInAndUp());
}
