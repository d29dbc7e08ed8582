import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { pickClient } from './api/pick-client';
import './styles.css';

// The transport is chosen once, here, and handed down; views never look at window.flipbook.
const client = pickClient();
const root = document.getElementById('root');
if (root === null) throw new Error('missing #root');
createRoot(root).render(
  <StrictMode>
    <App client={client} />
  </StrictMode>,
);
