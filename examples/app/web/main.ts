/**
 * The example app's page: supertokens-web-js, the official frontend SDK without a UI of its own,
 * with the same recipes as the backend, and one view per address (the backend serves this page for
 * each of them). The SDK keeps the session in cookies and refreshes it by itself when the backend
 * answers that the access token expired.
 */
import './style.css';
import SuperTokens from 'supertokens-web-js';
import EmailPassword from 'supertokens-web-js/recipe/emailpassword';
import EmailVerification from 'supertokens-web-js/recipe/emailverification';
import Passwordless from 'supertokens-web-js/recipe/passwordless';
import Session from 'supertokens-web-js/recipe/session';
import ThirdParty from 'supertokens-web-js/recipe/thirdparty';
import WebAuthn from 'supertokens-web-js/recipe/webauthn';
import { accountView } from './account.js';
import { problem, say } from './dom.js';
import { inboxView } from './inbox.js';
import { magicLinkView, providerCallbackView, recoverView, resetPasswordView, verifyEmailView } from './links.js';
import { type AppConfig, signInView } from './sign-in.js';

SuperTokens.init({
  appInfo: { appName: 'Auth core example', apiDomain: location.origin, apiBasePath: '/api/auth' },
  recipeList: [
    Session.init(),
    EmailPassword.init(),
    ThirdParty.init(),
    Passwordless.init(),
    WebAuthn.init(),
    EmailVerification.init(),
  ],
});

async function route(): Promise<void> {
  const config = (await (await fetch('/api/config')).json()) as AppConfig;
  const dashboard = document.getElementById('dashboard-link');
  if (dashboard) dashboard.hidden = !config.dashboard;
  switch (location.pathname) {
    case '/':
      return accountView();
    case '/auth':
      if (await Session.doesSessionExist()) return location.replace('/');
      return signInView(config);
    case '/auth/reset-password':
      return resetPasswordView();
    case '/auth/verify-email':
      return verifyEmailView();
    case '/auth/verify':
      return magicLinkView();
    case '/auth/webauthn/recover':
      return recoverView();
    case '/auth/callback/google':
      return providerCallbackView();
    case '/inbox':
      return inboxView();
  }
}

route().catch((error: unknown) => say(problem(error), 'alert'));
