import type { ReactNode } from "react";

export const metadata = { title: "Marea", description: "Storefront catalog and webhook service" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: "2rem", color: "#111" }}>{children}</body>
    </html>
  );
}
