import type { oauthEn } from "./oauth.en";

/** Textos de la página de consentimiento OAuth, la página de error y las aplicaciones conectadas. */
export const oauthEs: Record<keyof typeof oauthEn, string> = {
  "oauth.consent.pageTitle": "Conectar una aplicación",
  "oauth.consent.heading": "¿Permitir que {app} use tu cuenta de Marea?",
  "oauth.consent.intro": "{app} pide trabajar con tus tiendas a través del servidor MCP de Marea.",
  "oauth.consent.signedInAs": "Sesión iniciada como {email}.",
  "oauth.consent.appLabel": "Aplicación",
  "oauth.consent.clientLabel": "Client ID publicado en",
  "oauth.consent.clientRegistered":
    "Se registró sola en Marea: el nombre es el que la aplicación dice tener.",
  "oauth.consent.websiteLabel": "Sitio web",
  "oauth.consent.redirectLabel": "Te devuelve a",
  "oauth.consent.scopesHeading": "Podrá:",
  "oauth.consent.unavailable": "No se incluye hasta que verifiques tu correo electrónico: {scopes}.",
  "oauth.consent.keyNote":
    "Al permitirlo se crea una clave de API llamada «{app}» para esta aplicación. Borra esa clave, o desconecta la aplicación desde la página de tu cuenta, para cortar su acceso al instante.",
  "oauth.consent.reconnect":
    "{app} ya está conectada: al permitirlo, lo que puede hacer pasa a ser la lista de arriba.",
  "oauth.consent.trust": "Permite solo aplicaciones de confianza que acabes de intentar conectar tú.",
  "oauth.consent.approve": "Permitir",
  "oauth.consent.deny": "Rechazar",
  "oauth.scope.read": "Ver tus tiendas, productos, pedidos y endpoints de webhook",
  "oauth.scope.write": "Crear y cambiar tiendas y productos, borrar productos y actualizar pedidos",
  "oauth.scope.publish": "Publicar y despublicar tus tiendas",
  "oauth.error.title": "No se puede completar la solicitud de esta aplicación",
  "oauth.error.body":
    "La aplicación envió una solicitud que Marea no puede aceptar, así que no te devolvimos a ella. Cierra esta página y vuelve a conectar desde la aplicación; si sigue pasando, avisa a quienes la hacen.",
  "oauth.error.code": "Código de error: {code}",
  "oauth.error.back": "Ir al panel",
  "oauth.apps.title": "Aplicaciones conectadas",
  "oauth.apps.description":
    "Aplicaciones a las que permitiste usar tu cuenta por MCP. Al desconectar una, su clave y sus tokens se revocan al instante.",
  "oauth.apps.empty": "Todavía no hay aplicaciones conectadas",
  "oauth.apps.emptyBody": "Añade Marea a un cliente MCP como Claude o Cursor con la dirección {url}.",
  "oauth.apps.caption": "Aplicaciones conectadas a tu cuenta",
  "oauth.apps.colApp": "Aplicación",
  "oauth.apps.colAccess": "Acceso",
  "oauth.apps.colKey": "Clave",
  "oauth.apps.colConnected": "Conectada",
  "oauth.apps.colActions": "Acciones",
  "oauth.apps.registered": "se registró sola",
  "oauth.apps.disconnect": "Desconectar",
  "oauth.apps.disconnectLabel": "Desconectar {app}",
  "oauth.apps.disconnected": "La aplicación se desconectó. Su clave y sus tokens ya no funcionan.",
  "oauth.badge.connectedApp": "Aplicación conectada",
  "oauth.badge.title": "Esta clave pertenece a la aplicación conectada {app}",
};
