import { render } from "preact";
import "@xterm/xterm/css/xterm.css";
import "./styles.css";
import { App } from "./App";

render(<App />, document.getElementById("app")!);
