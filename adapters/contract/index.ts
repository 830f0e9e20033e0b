/**
 * The adapter contract test kit: one call, {@link describeAdapterContract}, registers
 * the whole contract suite for a channel adapter against a loopback fake platform
 * ({@link startFakePlatform}), a real database and an injectable clock, plus the golden cases
 * found by file pattern (`*.inbound.json`, `*.outbound.json`). How to use it:
 * docs/adapter-authoring.md. No platform knowledge lives in this folder.
 */
export { describeAdapterContract } from './suite.ts';
export {
  startFakePlatform,
  FakePlatform,
  type FakeReply,
  type FakeHandler,
  type PathPattern,
  type RecordedRequest,
  type RecordedPart,
} from './fake-server.ts';
export {
  loadInboundCases,
  loadOutboundCases,
  inboundBody,
  matchSubset,
  type InboundCase,
  type OutboundCase,
  type InboundAction,
  type ExpectedCall,
  type ScriptedReply,
} from './cases.ts';
export { bodyField, bodyObject, orderedCallProblems } from './golden.ts';
export { createClock, createRecordingHost, nextSeq, type RecordingHost, type HostCall } from './harness.ts';
export { mutate } from './fuzz.ts';
export { prng } from './outbound-checks.ts';
export type {
  AdapterContractOptions,
  AttachmentProbe,
  ContractClock,
  ContractContext,
  EventGenerators,
  EventSpec,
  HandshakeCase,
  OutboundProbes,
  SignedRequest,
} from './types.ts';
