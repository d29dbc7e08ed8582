// A worker thread that loads the store (main-thread.test.ts, through thread-child.ts).
import { identifyProjectFile } from '../../../electron/store/identify';

void identifyProjectFile;
