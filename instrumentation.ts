/**
 * Next.js start-up hook: migrate the database before the first request, publish the admin channel for the
 * CLI (embedded database only), and start the in-process background worker.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("@/server/startup");
  await startServer();
}
