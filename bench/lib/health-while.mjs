// Runs `call` while asking the server at `url` for `/api/health` every 10 ms, one at a time:
// how long each answer took says whether the call held up other requests.
import { seconds } from './stats.mjs';

/** `call`'s wall time in seconds, and how long each health answer took meanwhile. */
export async function healthWhile(url, call) {
  let done = false;
  const start = process.hrtime.bigint();
  const running = call().finally(() => (done = true));
  const healths = [];
  while (!done) {
    const asked = process.hrtime.bigint();
    const response = await fetch(`${url}/api/health`);
    await response.arrayBuffer();
    healths.push(seconds(asked));
    // A monitor's pace, not a flood competing with the call for the CPU.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await running;
  return { seconds: seconds(start), healths };
}
