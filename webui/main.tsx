/** Entry of the web UI bundle (built by api/webui/bundle.ts). */
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
