/** The channels of this build as the gateway hands them on (adapters/index.ts). */
import { channelDeclarations } from '../../adapters/index.ts';
import { directoryChannels } from '../../src/channel/declaration.ts';

/** The directory's channel columns of this build. */
export const BUILD_DIRECTORY_CHANNELS = directoryChannels(channelDeclarations);
