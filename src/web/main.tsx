// Entry point of the dashboard bundle: styles and the app mounted on #app.
import './styles.css';
import { render } from 'preact';
import { App } from './app.tsx';

const root = document.getElementById('app');
if (root) render(<App />, root);
