// Preloaded (node --require) into servers that listen on a bare port, so
// that tests bind them to 127.0.0.1 only, never to every interface.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
