import type { oauthEn } from "./oauth.en";

/** Textos da página de consentimento OAuth, da página de erro e dos aplicativos conectados. */
export const oauthPt: Record<keyof typeof oauthEn, string> = {
  "oauth.consent.pageTitle": "Conectar um aplicativo",
  "oauth.consent.heading": "Permitir que {app} use sua conta do Marea?",
  "oauth.consent.intro": "{app} pede para trabalhar com suas lojas pelo servidor MCP do Marea.",
  "oauth.consent.signedInAs": "Conectado como {email}.",
  "oauth.consent.appLabel": "Aplicativo",
  "oauth.consent.clientLabel": "Client ID publicado em",
  "oauth.consent.clientRegistered": "Registrou-se sozinho no Marea: o nome é o que o aplicativo diz ter.",
  "oauth.consent.websiteLabel": "Site",
  "oauth.consent.redirectLabel": "Leva você de volta para",
  "oauth.consent.scopesHeading": "Ele poderá:",
  "oauth.consent.unavailable": "Não incluído até você verificar seu e-mail: {scopes}.",
  "oauth.consent.keyNote":
    "Ao permitir, é criada uma chave de API chamada “{app}” para este aplicativo. Exclua essa chave, ou desconecte o aplicativo na página da sua conta, para cortar o acesso na hora.",
  "oauth.consent.reconnect":
    "{app} já está conectado: ao permitir, o que ele pode fazer passa a ser a lista acima.",
  "oauth.consent.trust": "Permita apenas aplicativos de confiança que você mesmo acabou de tentar conectar.",
  "oauth.consent.approve": "Permitir",
  "oauth.consent.deny": "Recusar",
  "oauth.scope.read": "Ver suas lojas, produtos, pedidos e endpoints de webhook",
  "oauth.scope.write": "Criar e alterar lojas e produtos, excluir produtos e atualizar pedidos",
  "oauth.scope.publish": "Publicar e despublicar suas lojas",
  "oauth.error.title": "Não é possível concluir a solicitação deste aplicativo",
  "oauth.error.body":
    "O aplicativo enviou uma solicitação que o Marea não pode aceitar, então você não foi levado de volta a ele. Feche esta página e conecte de novo pelo aplicativo; se continuar acontecendo, avise quem o faz.",
  "oauth.error.code": "Código de erro: {code}",
  "oauth.error.back": "Ir para o painel",
  "oauth.apps.title": "Aplicativos conectados",
  "oauth.apps.description":
    "Aplicativos que você autorizou a usar sua conta por MCP. Ao desconectar um, a chave e os tokens dele são revogados na hora.",
  "oauth.apps.empty": "Nenhum aplicativo conectado ainda",
  "oauth.apps.emptyBody": "Adicione o Marea a um cliente MCP como Claude ou Cursor com o endereço {url}.",
  "oauth.apps.caption": "Aplicativos conectados à sua conta",
  "oauth.apps.colApp": "Aplicativo",
  "oauth.apps.colAccess": "Acesso",
  "oauth.apps.colKey": "Chave",
  "oauth.apps.colConnected": "Conectado em",
  "oauth.apps.colActions": "Ações",
  "oauth.apps.registered": "registrou-se sozinho",
  "oauth.apps.disconnect": "Desconectar",
  "oauth.apps.disconnectLabel": "Desconectar {app}",
  "oauth.apps.disconnected": "O aplicativo foi desconectado. A chave e os tokens dele não funcionam mais.",
  "oauth.badge.connectedApp": "Aplicativo conectado",
  "oauth.badge.title": "Esta chave pertence ao aplicativo conectado {app}",
};
