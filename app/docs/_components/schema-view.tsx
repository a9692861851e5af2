import type { ReactNode } from "react";
import type { Translate } from "@/app/_i18n/catalogue";
import { type ApiDocument, constraintsOf, type JsonSchema, refName, schemaAnchor } from "../_lib/openapi";
import { InlineText } from "./inline";

type Props = { schema: JsonSchema; doc?: ApiDocument; t: Translate; depth?: number };

function variantsOf(schema: JsonSchema): JsonSchema[] | undefined {
  return schema.anyOf ?? schema.oneOf;
}

/** The one-line type of a schema: `string (date-time)`, `array of Product`, `Order or null`, `one of: a, b`. */
export function TypeLabel({ schema, t }: { schema: JsonSchema; t: Translate }): ReactNode {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return <a href={`/docs/api#${schemaAnchor(name)}`}>{name}</a>;
  }
  const variants = variantsOf(schema);
  if (variants) {
    const nonNull = variants.filter((v) => v.type !== "null");
    const nullable = nonNull.length < variants.length;
    return (
      <>
        {nonNull.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a schema's variants, in their fixed order
          <span key={i}>
            {i > 0 ? " | " : null}
            <TypeLabel schema={v} t={t} />
          </span>
        ))}
        {nullable ? ` ${t("docs.api.nullable")}` : null}
      </>
    );
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nullable = types.includes("null");
  const main = types.filter((type) => type !== "null");
  let label: ReactNode = main.join(" | ") || "any";
  if (main[0] === "array" && schema.items) {
    label = (
      <>
        {t("docs.api.arrayOf")} <TypeLabel schema={schema.items} t={t} />
      </>
    );
  } else if (schema.format) {
    label = `${label} (${schema.format})`;
  }
  return (
    <>
      {label}
      {schema.const !== undefined ? (
        <>
          {" = "}
          <code>{JSON.stringify(schema.const)}</code>
        </>
      ) : null}
      {nullable ? ` ${t("docs.api.nullable")}` : null}
    </>
  );
}

/** The object a schema describes inline (itself, or its non-null variant, or an array's items), if any. */
function inlineObject(schema: JsonSchema): JsonSchema | null {
  if (schema.$ref) return null;
  if (schema.properties) return schema;
  const variant = variantsOf(schema)?.find((v) => !v.$ref && v.properties);
  if (variant) return variant;
  if (schema.items && !schema.items.$ref && schema.items.properties) return schema.items;
  return null;
}

function enumOf(schema: JsonSchema): unknown[] | undefined {
  return schema.enum ?? variantsOf(schema)?.find((v) => v.enum)?.enum ?? schema.items?.enum;
}

/**
 * A JSON Schema as a list of its fields (name, type, required, description, limits, allowed values), nested
 * objects indented beneath their field; references link to the API reference's Schemas section.
 */
export function SchemaView({ schema, t, depth = 0 }: Props) {
  const object = schema.properties ? schema : inlineObject(schema);
  if (!object?.properties) {
    return (
      <p className="text-sm">
        <TypeLabel schema={schema} t={t} />
        {schema.description ? (
          <span className="text-muted">
            {" — "}
            <InlineText text={schema.description} />
          </span>
        ) : null}
      </p>
    );
  }
  const required = new Set(object.required ?? []);
  return (
    <ul className="fields">
      {Object.entries(object.properties).map(([name, property]) => {
        const nested = depth < 4 ? inlineObject(property) : null;
        const limits = constraintsOf(property);
        const values = enumOf(property);
        const notes = [
          ...limits,
          ...(property.default !== undefined
            ? [t("docs.api.default", { value: JSON.stringify(property.default) })]
            : []),
        ];
        return (
          <li key={name}>
            <div className="fh">
              <code className="fn">{name}</code>
              <span className="ft">
                <TypeLabel schema={property} t={t} />
              </span>
              {required.has(name) ? <span className="fr">{t("docs.api.required")}</span> : null}
            </div>
            {property.description ? (
              <p className="fd">
                <InlineText text={property.description} />
              </p>
            ) : null}
            {values && values.length > 0 ? (
              <p className="fx">
                {t("docs.api.oneOf")} <code>{values.map((value) => JSON.stringify(value)).join(", ")}</code>
              </p>
            ) : null}
            {notes.length > 0 ? <p className="fx">{notes.join(" · ")}</p> : null}
            {nested ? (
              <div className="fnest">
                <SchemaView schema={nested} t={t} depth={depth + 1} />
              </div>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
