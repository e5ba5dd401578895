// Run the browser full-screen in the terminal (alternate screen buffer) until q.
import { createElement } from "react";
import { render } from "ink";
import { BrowseApp } from "./components/BrowseApp.js";
import type { BrowseSession } from "./session.js";

const ENTER_ALT = "\u001b[?1049h\u001b[H";
const LEAVE_ALT = "\u001b[?1049l";

export async function runBrowser(session: BrowseSession, out: NodeJS.WriteStream = process.stdout): Promise<void> {
  out.write(ENTER_ALT);
  try {
    const app = render(createElement(BrowseApp, { session }), { stdout: out, exitOnCtrlC: true, patchConsole: true });
    await app.waitUntilExit();
    app.cleanup();
  } finally {
    out.write(LEAVE_ALT);
    session.close();
  }
}
