/**
 * The sign-in page (/auth): every way in the backend offers, each in its own section — email and
 * password (sign in, sign up, forgotten password), a passkey (sign in, sign up with an email,
 * recovery of a lost passkey), a code sent by email, and Google when the backend has it configured.
 * A success goes to the account page.
 */
import EmailPassword from 'supertokens-web-js/recipe/emailpassword';
import Passwordless from 'supertokens-web-js/recipe/passwordless';
import ThirdParty from 'supertokens-web-js/recipe/thirdparty';
import WebAuthn from 'supertokens-web-js/recipe/webauthn';
import { busy, field, h, inputValue, messageLine, say, section, show } from './dom.js';

export interface AppConfig {
  readonly thirdPartyProviders: readonly string[];
  readonly dashboard: boolean;
}

/** An answer of the SDK's functions: a status, and for some of them what went wrong. */
interface Answer {
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly formFields?: readonly { id: string; error: string }[];
}

/** What a person reads for each answer of the SDK that is not OK. */
function explain(result: Answer): string {
  switch (result.status) {
    case 'FIELD_ERROR':
      return (result.formFields ?? []).map((f) => `${f.id}: ${f.error}`).join('; ');
    case 'WRONG_CREDENTIALS_ERROR':
      return 'Wrong email or password.';
    case 'EMAIL_ALREADY_EXISTS_ERROR':
      return 'An account with this email already exists: sign in instead.';
    case 'INVALID_CREDENTIALS_ERROR':
      return 'This passkey is not registered with any account.';
    case 'FAILED_TO_AUTHENTICATE_USER':
      return 'No passkey was used.';
    case 'FAILED_TO_REGISTER_USER':
      return 'No passkey was created.';
    case 'WEBAUTHN_NOT_SUPPORTED':
      return 'This browser does not support passkeys.';
    case 'AUTHENTICATOR_ALREADY_REGISTERED':
      return 'This authenticator already holds a passkey for this site.';
    case 'INCORRECT_USER_INPUT_CODE_ERROR':
      return 'Wrong code: try again.';
    case 'EXPIRED_USER_INPUT_CODE_ERROR':
      return 'The code has expired: ask for a new one.';
    case 'RESTART_FLOW_ERROR':
      return 'This sign-in has ended: ask for a new code.';
    default:
      return result.reason ?? result.message ?? result.status;
  }
}

/** Shows what went wrong, or goes to the account page. */
function finish(result: Answer): void {
  if (result.status === 'OK') location.assign('/');
  else say(explain(result), 'alert');
}

function passwordSection(): HTMLElement {
  let action: 'signin' | 'signup' = 'signin';
  const form = h(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        const formFields = [
          { id: 'email', value: inputValue(form, 'email') },
          { id: 'password', value: inputValue(form, 'password') },
        ];
        void busy(form, async () => {
          finish(
            action === 'signin'
              ? await EmailPassword.signIn({ formFields })
              : await EmailPassword.signUp({ formFields }),
          );
        });
      },
    },
    field('Email', { name: 'email', type: 'email', autocomplete: 'username', required: true }),
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', onclick: () => (action = 'signin') }, 'Sign in'),
      h('button', { type: 'submit', class: 'secondary', onclick: () => (action = 'signup') }, 'Sign up'),
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: () => {
            const email = inputValue(form, 'email');
            if (!email) return say('Type your email first.', 'alert');
            void busy(form, async () => {
              const result = await EmailPassword.sendPasswordResetEmail({
                formFields: [{ id: 'email', value: email }],
              });
              if (result.status === 'OK') say(`If ${email} has an account, a reset link is in the inbox.`);
              else say(explain(result), 'alert');
            });
          },
        },
        'Forgot your password?',
      ),
    ),
  );
  return section('password-title', 'Email and password', form);
}

function passkeySection(): HTMLElement {
  const signUp = h(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        void busy(signUp, async () => {
          finish(await WebAuthn.registerCredentialWithSignUp({ email: inputValue(signUp, 'email'), userContext: {} }));
        });
      },
    },
    field('Email', {
      name: 'email',
      type: 'email',
      autocomplete: 'username webauthn',
      required: true,
    }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'secondary' }, 'Sign up with a passkey'),
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: () => {
            const email = inputValue(signUp, 'email');
            if (!email) return say('Type your email first.', 'alert');
            void busy(signUp, async () => {
              const result = await WebAuthn.generateRecoverAccountToken({ email, userContext: {} });
              if (result.status === 'OK') say(`If ${email} has a passkey account, a recovery link is in the inbox.`);
              else say(explain(result), 'alert');
            });
          },
        },
        'Lost your passkey?',
      ),
    ),
  );
  const signIn = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        void busy(signIn, async () => {
          finish(await WebAuthn.authenticateCredentialWithSignIn({ userContext: {} }));
        });
      },
    },
    'Sign in with a passkey',
  );
  return section('passkey-title', 'Passkey', h('div', { class: 'actions' }, signIn), signUp);
}

function codeSection(): HTMLElement {
  const codeForm = h(
    'form',
    {
      hidden: true,
      onsubmit: (event) => {
        event.preventDefault();
        void busy(codeForm, async () => {
          finish(await Passwordless.consumeCode({ userInputCode: inputValue(codeForm, 'code') }));
        });
      },
    },
    field('Code', { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', required: true }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Sign in with the code')),
  );
  const emailForm = h(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        void busy(emailForm, async () => {
          const email = inputValue(emailForm, 'email');
          const result = await Passwordless.createCode({ email });
          if (result.status !== 'OK') return say(explain(result), 'alert');
          codeForm.hidden = false;
          say(`A code and a sign-in link for ${email} are in the inbox.`);
        });
      },
    },
    field('Email', { name: 'email', type: 'email', autocomplete: 'username', required: true }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'secondary' }, 'Email me a code')),
  );
  return section('code-title', 'Code by email', emailForm, codeForm);
}

function providerSection(providers: readonly string[]): HTMLElement | false {
  if (!providers.includes('google')) return false;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () => {
        void busy(button, async () => {
          location.assign(
            await ThirdParty.getAuthorisationURLWithQueryParamsAndSetState({
              thirdPartyId: 'google',
              frontendRedirectURI: `${location.origin}/auth/callback/google`,
            }),
          );
        });
      },
    },
    'Continue with Google',
  );
  return section('provider-title', 'Google', h('div', { class: 'actions' }, button));
}

export function signInView(config: AppConfig): void {
  show(
    h('h1', {}, 'Sign in'),
    messageLine(),
    h(
      'div',
      { class: 'cards' },
      passwordSection(),
      passkeySection(),
      codeSection(),
      providerSection(config.thirdPartyProviders),
    ),
  );
}

export { explain, finish };
