export default function HomePage() {
  return (
    <main>
      <h1>Marea</h1>
      <p>Storefront catalog and webhook service.</p>
      <ul>
        <li>
          <a href="/v1/openapi.json">API description (OpenAPI 3.1)</a>
        </li>
        <li>
          <a href="/healthz">Health</a>
        </li>
        <li>
          <a href="/dev/mail">Development mail outbox</a>
        </li>
      </ul>
    </main>
  );
}
