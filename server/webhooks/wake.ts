/**
 * How a committed change reaches the delivery engine quickly. `wakeDeliveries()` is what callers pass to
 * `ctx.afterCommit` after `emitEvent`; the engine that runs in this process (the in-process worker, or the
 * Inngest dispatcher) registers itself here at start-up. Kept on globalThis: Next.js may evaluate a module
 * once per bundle (instrumentation and route handlers), and both must reach the same worker.
 */
type WakeHandler = () => void;

const holder = globalThis as unknown as { __mareaWebhookWake?: Set<WakeHandler> };

function handlers(): Set<WakeHandler> {
  holder.__mareaWebhookWake ??= new Set();
  return holder.__mareaWebhookWake;
}

/** Registers an engine's wake-up; returns the function that unregisters it. */
export function onWakeDeliveries(handler: WakeHandler): () => void {
  handlers().add(handler);
  return () => {
    handlers().delete(handler);
  };
}

/** Tells the delivery engine of this process that new deliveries were committed. Never throws. */
export function wakeDeliveries(): void {
  for (const handler of handlers()) {
    try {
      handler();
    } catch {
      // a wake-up is a hint: the poll interval catches up
    }
  }
}

/** NOTIFY channel: `emitEvent` notifies it inside the transaction, so every listening worker wakes at commit. */
export const DELIVERY_CHANNEL = "marea_webhook_deliveries";
