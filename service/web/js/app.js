// Routes by the URL fragment (never sent to a server):
//   #/  lobby · #/table/<id> a seat · #/watch/<id> spectator · #/replay[/<id>] replay viewer
//   #/tournament/<id> a tournament (an entrant's view too, with their player token)
// A fragment may carry a seat token (#/table/<id>?seat=1&token=...) or a tournament
// entrant's player token (#/tournament/<id>?token=...): it moves into this tab's
// sessionStorage and out of the address bar at once.
import {h, replace} from "./dom.js";
import {openLobby} from "./lobby.js";
import {openTable} from "./play.js";
import {openReplay} from "./replay.js";
import {keepPlayer, keepSeat} from "./store.js";
import {openTournament} from "./tournament.js";
import {inWords} from "./words.js";

const root = document.getElementById("app");
let current = null;

function route() {
  if (current && current.stop) current.stop();
  current = null;
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const [, page, id] = path.split("/");
  if (query) {
    const handed = new URLSearchParams(query);
    if (page === "table" && handed.get("token")) {
      keepSeat(id, Number(handed.get("seat")), handed.get("token"), handed.get("name"));
    }
    if (page === "tournament" && handed.get("token")) keepPlayer(id, handed.get("token"));
    history.replaceState(null, "", `#/${page}/${id}`);
  }
  root.dataset.page = page || "lobby";
  if (page === "table" && id) current = openTable(root, id);
  else if (page === "watch" && id) current = openTable(root, id, {spectate: true});
  else if (page === "replay") openReplay(root, id);
  else if (page === "tournament" && id) current = openTournament(root, id);
  else openLobby(root).catch((error) => replace(root, h("p", {class: "notice error"}, inWords(error))));
}

window.addEventListener("hashchange", route);
route();
