// Anything exported here is public API of @conch/sandbox-macos.
export { createSeatbeltBackend, probeSeatbelt, SANDBOX_EXEC } from "./backend.js";
export {
  type SeatbeltProfile,
  type SeatbeltProfileOptions,
  seatbeltArgs,
  seatbeltProfile,
} from "./profile.js";
