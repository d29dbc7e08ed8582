/** The application menu; commands that need the UI are forwarded to the renderer as menu:command events. */
import { Menu, type MenuItemConstructorOptions } from 'electron';

export type MenuCommand = 'new-project' | 'open-project' | 'import' | 'export' | 'undo' | 'redo' | 'shortcuts';

export function buildMenu(opts: { recent: string[]; send: (c: MenuCommand) => void; openRecent: (p: string) => void; newWindow: () => void; isMac: boolean }): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(opts.isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'New Project…', accelerator: 'CmdOrCtrl+N', click: () => opts.send('new-project') },
        { label: 'Open Project…', accelerator: 'CmdOrCtrl+O', click: () => opts.send('open-project') },
        // Another window on the same project (e.g. the queue beside an item): every window hears every change.
        { label: 'New Window', accelerator: 'CmdOrCtrl+Shift+N', click: () => opts.newWindow() },
        {
          label: 'Open Recent',
          submenu: opts.recent.length ? opts.recent.map((p) => ({ label: p, click: () => opts.openRecent(p) })) : [{ label: 'No recent projects', enabled: false }],
        },
        { type: 'separator' },
        { label: 'Import…', accelerator: 'CmdOrCtrl+I', click: () => opts.send('import') },
        { label: 'Export Release…', accelerator: 'CmdOrCtrl+E', click: () => opts.send('export') },
        { type: 'separator' },
        opts.isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: 'Edit',
      submenu: [
        // Annotation undo/redo go to the backend's event log, not the text field's undo stack.
        { label: 'Undo Annotation Edit', accelerator: 'CmdOrCtrl+Z', click: () => opts.send('undo') },
        { label: 'Redo Annotation Edit', accelerator: 'CmdOrCtrl+Shift+Z', click: () => opts.send('redo') },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    { label: 'Help', submenu: [{ label: 'Keyboard Shortcuts', accelerator: '?', click: () => opts.send('shortcuts') }] },
  ];
  return Menu.buildFromTemplate(template);
}
