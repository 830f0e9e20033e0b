/**
 * Console section `audit` (issue 10 §6; docs/console.md).
 */
import express from 'express';
import type { AdminSection } from '../kit.ts';

/** The `audit` section. */
export const auditSection: AdminSection = {
  id: 'audit',
  title: { zh: '审计日志', en: 'Audit log' },
  routes() {
    return express.Router();
  },
};
