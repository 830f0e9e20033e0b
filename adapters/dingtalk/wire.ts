/**
 * DingTalk wire shapes (enterprise internal robot, HTTP outgoing-callback mode). Only the fields
 * the adapter reads or writes. Sources: https://open.dingtalk.com/document/orgapp/receive-message
 * (callback body), https://open.dingtalk.com/document/orgapp/download-media-files (download
 * codes) (reply paths, Open API bodies).
 */

/** The callback body DingTalk POSTs to our webhook (every field optional: it is untrusted JSON). */
export interface RobotCallback {
  msgId?: string;
  msgtype?: string;
  /** '1' single chat, '2' group. */
  conversationType?: string;
  conversationId?: string;
  conversationTitle?: string;
  senderId?: string;
  senderNick?: string;
  senderStaffId?: string;
  senderCorpId?: string;
  chatbotUserId?: string;
  chatbotCorpId?: string;
  robotCode?: string;
  isAdmin?: boolean;
  /** True when the robot was @-mentioned (groups). */
  isInAtList?: boolean;
  atUsers?: { dingtalkId?: string; staffId?: string }[];
  /** Temporary reply URL and its expiry (ms since the epoch). */
  sessionWebhook?: string;
  sessionWebhookExpiredTime?: number;
  /** ms since the epoch. */
  createAt?: number;
  text?: { content?: string };
  /** picture / file / richText / audio / video content. */
  content?: {
    downloadCode?: string;
    pictureDownloadCode?: string;
    fileName?: string;
    fileId?: string;
    spaceId?: string;
    duration?: number | string;
    recognition?: string;
    videoType?: string;
    richText?: { text?: string; downloadCode?: string; pictureDownloadCode?: string; type?: string }[];
  };
}

/** `POST /v1.0/oauth2/accessToken` answer. */
export interface AccessTokenResponse {
  accessToken?: string;
  /** Seconds. */
  expireIn?: number;
}

/** An error body of the new API (api.dingtalk.com). */
export interface NewApiError {
  code?: string;
  message?: string;
  requestid?: string;
}

/** An answer of the old API and the session webhook (oapi.dingtalk.com). */
export interface OapiResult {
  errcode?: number;
  errmsg?: string;
  media_id?: string;
}

/** A message body for the session webhook (`msgtype` + its object). */
export type SessionMessage =
  | { msgtype: 'text'; text: { content: string } }
  | { msgtype: 'markdown'; markdown: { title: string; text: string } };

/** Open API message keys (`msgKey`) and their `msgParam` objects. */
export type OpenApiMessage =
  | { msgKey: 'sampleText'; msgParam: { content: string } }
  | { msgKey: 'sampleMarkdown'; msgParam: { title: string; text: string } }
  | { msgKey: 'sampleImageMsg'; msgParam: { photoURL: string } }
  | { msgKey: 'sampleFile'; msgParam: { mediaId: string; fileName: string; fileType: string } };
