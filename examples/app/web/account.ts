/**
 * The account page (/), behind the session: who is signed in as the backend's protected API
 * (/api/me) answers it — the user the core holds, with the metadata an import carried over — and
 * when the access token expires. "Call the protected API" asks again: after the token expired, the
 * SDK refreshes the session by itself first. Passkey users list, add and remove their passkeys.
 * "Sign out" ends the session in the core and goes back to the sign-in page.
 */
import EmailVerification from 'supertokens-web-js/recipe/emailverification';
import Session from 'supertokens-web-js/recipe/session';
import WebAuthn from 'supertokens-web-js/recipe/webauthn';
import { busy, h, messageLine, say, section, show, time } from './dom.js';
import { explain } from './sign-in.js';

/** What /api/me answers. */
interface Me {
  readonly userId: string;
  readonly emails: readonly string[];
  readonly timeJoined: number;
  readonly loginMethods: readonly {
    recipeId: string;
    recipeUserId: string;
    email?: string;
    thirdParty?: { id: string; userId: string };
    verified: boolean;
  }[];
  readonly metadata: Record<string, unknown>;
  readonly sessionHandle: string;
  readonly accessTokenExpiresAt: number;
}

/** The protected API; the SDK adds the session and refreshes an expired one before answering. */
async function fetchMe(): Promise<Me | undefined> {
  const response = await fetch('/api/me');
  if (response.status === 401) return undefined;
  if (!response.ok) throw new Error(`The protected API answered ${response.status}.`);
  return (await response.json()) as Me;
}

function method(m: Me['loginMethods'][number]): string {
  const how =
    m.recipeId === 'emailpassword'
      ? 'password'
      : m.recipeId === 'webauthn'
        ? 'passkey'
        : m.recipeId === 'thirdparty'
          ? (m.thirdParty?.id ?? 'provider')
          : m.recipeId === 'passwordless'
            ? 'code by email'
            : m.recipeId;
  return `${how}${m.email ? ` (${m.email}${m.verified ? ', verified' : ', not verified'})` : ''}`;
}

function details(me: Me): HTMLElement {
  const rows: [string, string][] = [
    ['User id', me.userId],
    ['Email', me.emails.join(', ') || '—'],
    ['Signs in with', me.loginMethods.map(method).join('; ')],
    ['Joined', time(me.timeJoined)],
    ['Metadata', Object.keys(me.metadata).length > 0 ? JSON.stringify(me.metadata) : '—'],
    ['Access token valid until', time(me.accessTokenExpiresAt)],
  ];
  return h(
    'dl',
    { id: 'me' },
    ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', { 'data-term': term }, value)]),
  );
}

/** The first 12 characters of a credential id, enough to tell a person's passkeys apart. */
function shortId(webauthnCredentialId: string): string {
  return webauthnCredentialId.slice(0, 12);
}

async function passkeys(me: Me): Promise<HTMLElement | false> {
  const login = me.loginMethods.find((m) => m.recipeId === 'webauthn');
  if (!login?.email) return false;
  const { email, recipeUserId } = login;
  const list = h('ul', { class: 'passkeys' });
  const root = section('passkeys-title', 'Passkeys', list);
  const refresh = async () => {
    const listed = await WebAuthn.listCredentials({ userContext: {} });
    if (listed.status !== 'OK') return say(explain(listed), 'alert');
    list.replaceChildren(
      ...listed.credentials
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((credential) => {
          const id = shortId(credential.webauthnCredentialId);
          const remove = h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Remove passkey ${id}`,
              onclick: () =>
                void busy(root, async () => {
                  const removed = await WebAuthn.removeCredential({
                    webauthnCredentialId: credential.webauthnCredentialId,
                    userContext: {},
                  });
                  if (removed.status !== 'OK') return say(explain(removed), 'alert');
                  say(`Passkey ${id} removed.`);
                  await refresh();
                }),
            },
            'Remove',
          );
          return h('li', {}, h('code', {}, id), h('span', {}, ` added ${time(credential.createdAt)} `), remove);
        }),
    );
  };
  const add = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        void busy(root, async () => {
          const added = await WebAuthn.createAndRegisterCredentialForSessionUser({
            email,
            recipeUserId,
            userContext: {},
          });
          if (added.status !== 'OK') return say(explain(added), 'alert');
          say('Passkey added.');
          await refresh();
        }),
    },
    'Add a passkey',
  );
  root.append(h('div', { class: 'actions' }, add));
  await refresh();
  return root;
}

export async function accountView(): Promise<void> {
  if (!(await Session.doesSessionExist())) {
    location.replace('/auth');
    return;
  }
  const me = await fetchMe();
  if (!me) {
    location.replace('/auth');
    return;
  }
  const card = section('account-title', 'Your account', details(me));
  const call = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        void busy(card, async () => {
          const again = await fetchMe();
          if (!again) return location.replace('/auth');
          card.querySelector('#me')?.replaceWith(details(again));
          say(`The protected API answered at ${new Date().toLocaleTimeString()}.`);
        }),
    },
    'Call the protected API',
  );
  const unverified = me.loginMethods.some((m) => m.email && !m.verified);
  const verify =
    unverified &&
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () =>
          void busy(card, async () => {
            const sent = await EmailVerification.sendVerificationEmail();
            say(sent.status === 'OK' ? 'A verification link is in the inbox.' : 'Your email is already verified.');
          }),
      },
      'Verify my email',
    );
  const signOut = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () =>
        void busy(card, async () => {
          await Session.signOut();
          location.assign('/auth');
        }),
    },
    'Sign out',
  );
  card.append(h('div', { class: 'actions' }, call, verify, signOut));
  show(
    h('h1', {}, `Signed in as ${me.emails[0] ?? me.userId}`),
    messageLine(),
    h('div', { class: 'cards' }, card, await passkeys(me)),
  );
}
