/**
 * Console section `outbox` (issue 10 §6; docs/console.md).
 */
import express from 'express';
import type { AdminSection } from '../kit.ts';

/** The `outbox` section. */
export const outboxSection: AdminSection = {
  id: 'outbox',
  title: { zh: '发送失败', en: 'Failed deliveries' },
  routes() {
    return express.Router();
  },
};
