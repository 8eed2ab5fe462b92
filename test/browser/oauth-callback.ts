// The popup page of test/browser/browser-oauth.test.ts. `?answer=<url>` plays the authorization
// server: it sends the popup on to its redirect; the redirect's page then runs `finishSignIn`.
import { finishSignIn } from "../../src/oauth/browser-oauth.ts";

const answer = new URL(location.href).searchParams.get("answer");
if (answer) location.replace(answer);
else finishSignIn();
