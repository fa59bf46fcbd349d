// Entry point of the dashboard bundle: styles and the app mounted on #app.
import './styles.css';
import { render } from 'preact';
import { App } from './app.tsx';
import { setFavicon } from './ui/titleCount.ts';

const root = document.getElementById('app');
setFavicon('');
if (root) render(<App />, root);
