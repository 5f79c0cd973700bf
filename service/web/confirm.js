// A confirmation before an act that cannot be undone (issue 30): a modal dialog that says
// what will happen, each consequence on its line, with the act's own button and Cancel
// (Escape cancels too). Resolves true when the act is confirmed.

import { h } from "./dom.js";

/** ({title, consequences: [string], confirm: label}) -> Promise<boolean> */
export function confirmAct({ title, consequences, confirm }) {
  return new Promise((resolve) => {
    const dialog = h("dialog.confirm", { "aria-labelledby": "confirm-title" },
      h("h2#confirm-title", {}, title),
      h("ul.consequences", {}, consequences.map((line) => h("li", {}, line))),
      h("div.buttons", {},
        h("button.danger", { type: "button", name: "confirm-yes", onclick: () => close(true) }, confirm),
        h("button", { type: "button", name: "confirm-no", onclick: () => close(false) }, "Cancel")));
    const close = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("[name=confirm-no]").focus();
  });
}
