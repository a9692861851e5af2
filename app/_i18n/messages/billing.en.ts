/** Interface text of the plan screen, /dashboard/billing (docs/ui.md, "Plans"). */
export const billingEn = {
  "billing.title": "Plans",
  "billing.description": "What each plan allows, and how to change yours.",
  "billing.current": "You are on the {plan}.",
  "billing.compare": "Plans compared",
  "billing.plan": "Plan",
  "billing.storefronts": "Storefronts",
  "billing.products": "Products",
  "billing.publish": "Publish storefronts",
  "billing.yes": "Yes",
  "billing.no": "No",
  "billing.yours": "Your plan",
  "billing.suggested": "Suggested",
  "billing.howTitle": "How to upgrade",
  "billing.how":
    "Marea has no self-service payment yet: the Marea team moves accounts to {plan}. Ask your Marea contact to upgrade {email}; your storefronts, products and keys stay as they are, and publishing opens as soon as the plan changes.",
  "billing.onPro": "Your account already has every limit of the Pro plan.",
} as const;
