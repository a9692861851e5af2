import { checkA11y, expect, screenshot, test, uniqueEmail } from "./support/fixtures";

// The plan screen every 402's upgrade.upgradeUrl opens (docs/ui.md, "Plans"; docs/api.md, "Plan limits").

test("a 402's upgradeUrl opens the plan screen: the account's plan, PRO suggested, and how to get it", async ({
  page,
  signIn,
}) => {
  const email = uniqueEmail("billing");
  await signIn(page, email);
  const response = await page.goto("/dashboard/billing?plan=PRO");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: "Plans" })).toBeVisible();
  await expect(page.getByText("You are on the Free plan.")).toBeVisible();
  const table = page.getByRole("region", { name: "Plans compared" });
  const pro = table.getByRole("row", { name: /Pro plan/ });
  await expect(pro).toContainText("Suggested");
  await expect(pro).toContainText("10,000");
  await expect(table.getByRole("row", { name: /^Free plan Your plan/ })).toContainText("No");
  await expect(page.getByText("Marea has no self-service payment yet")).toContainText(email);
  await checkA11y(page);
  await screenshot(page, "dashboard-billing");
});
