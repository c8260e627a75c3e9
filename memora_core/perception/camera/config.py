"""Typed configuration of the `camera` perception backend (robot_configs/perception.yaml, section `camera`)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class CameraPerceptionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model_path: str = Field(default="~/.cache/memora/camera/camera_model_v2.npz",
                            description="trained pixel table + attribute forest (`memora camera-train` writes it)")
    min_blob_px: int = Field(default=60, ge=1, description="an object region smaller than this many pixels is ignored")
    min_part_px: int = Field(default=25, ge=1, description="a colour part this large splits a merged region")
    palm_min_share: float = Field(default=0.1, ge=0, le=1, description="a pixel next to the forearm is the palm "
                                  "when at least this share of its colour's training pixels were hand (camera/hand.py)")
    palm_reach: float = Field(default=0.08, ge=0, description="the palm is within this fraction of the image width "
                              "of the forearm")
    pixel_context: bool = Field(default=True, description="classify pixels by colour and neighbourhood with the "
                                "model's context classifier when it has one (camera/context.py); off: the colour "
                                "table alone")
    instance_merge: bool = Field(default=True, description="find object instances by merging superpixels with the "
                                 "model's learned merge forest when it has one (camera/instances.py); off: connected "
                                 "regions split by colour")
    merge_min_p: float = Field(default=0.6, ge=0, le=1, description="two touching superpixels are merged when the "
                               "merge forest gives at least this probability that they are one object. Above an even "
                               "0.5, a thin or flat object against or in a container of its own colour (a spoon in a "
                               "bowl), or of a near colour (bread by a cup), is kept apart more often, at the cost of "
                               "more objects seen in two parts")
    min_solidity: float = Field(default=0.15, ge=0, le=1, description="a region whose pixels fill less than this "
                                "share of its convex hull is scattered fringe along several objects' edges, not an "
                                "object (ignored)")
    work_width: int = Field(default=320, ge=64, description="frames are resized to this width before analysis")
    place_tol: float = Field(default=0.06, gt=0, description="same place: centres this close (fraction of image width)")
    moved_confirm_s: float = Field(default=2.5, gt=0, description="missing from its place this long: it was taken")
    rest_frames: int = Field(default=2, ge=1, description="seen in one place this many frames running: at rest")
    pour_min_s: float = Field(default=1.0, gt=0, description="a held object over a container this long: a pour")
    pour_window_s: float = Field(default=3.0, gt=0, description="taken up again this soon after resting in a "
                                 "container: it was poured there, not put")
    min_carry_s: float = Field(default=1.5, ge=0, description="an object that shows at rest elsewhere sooner than "
                               "this after it went missing was not moved (no hand lifts, carries and sets down a "
                               "thing that fast): it is the object itself, found again")
    reach_window_s: float = Field(default=4.0, ge=0, description="an object that went missing with no hand at its "
                                  "place (hidden) is taken when the hand comes to its place within this many seconds")
    put_lead_s: float = Field(default=0.5, ge=0, description="a put is timed this long before the moment read from "
                              "the object's first sighting at its new place (and the hand's stay there just before): "
                              "the hand hides what it lets go of until it has drawn back (never before the pick)")
    same_action_s: float = Field(default=1.0, ge=0, description="actions of one kind on objects of one name this "
                                 "close in time are one action (one object followed as two tracks, both moved): "
                                 "reported once, at their mean time")
    hand_timing: bool = Field(default=True, description="time picks and puts by when the hand took hold and let go, "
                              "read by the model's holding forest (camera/holding.py) when it has one")
    hand_timing_s: float = Field(default=2.5, ge=0, description="a pick (put) is timed at the nearest grasp (release) "
                                 "of the hand within this many seconds of when the tracker read it")
    hand_drop_unmatched: bool = Field(default=True, description="drop a pick or put with no grasp or release of the "
                                      "hand within hand_timing_s (nothing was taken or let go then)")
    pour_target: Literal["hand", "tracker"] = Field(default="hand", description="what a pour went into: the "
                                                    "container the hand lay on most while it poured (hand: the tilted "
                                                    "frames of its hold, else the tracker's pour window), or the one the "
                                                    "tracker read (tracker; the hand's where it read none)")
    hold_wait_s: float = Field(default=6.0, ge=0, description="the pick, pours and put of one hold are reported "
                               "together, naming one object (camera/hold_object.py): they wait for the tracker to "
                               "read the hold's put this long after the hand let go, then end in a put at the release")
    forget_s: float = Field(default=8.0, gt=0, description="an object missing from its place this long, never seen "
                            "taken, is forgotten")
    beside_tol: float = Field(default=0.09, ge=0, description="put next to an object handled before: centres this close "
                              "(fraction of image width)")
    label_prior_ratio: float | None = Field(default=0.7, gt=0, le=1, description="a track whose strongest label "
                                            "class is 'no label' reads a product this kitchen showed before "
                                            "(products.py) when that label's evidence is at least this fraction of "
                                            "the no-label evidence; None: labels as read, and each video named alone")
    product_min_seen: int = Field(default=3, ge=1, description="a label is known in the kitchen once a track read it "
                                  "in this many sightings")
    vote_unsaid: bool = Field(default=True, description="report the attributes an object's name leaves unsaid (its "
                              "colour when named by label, its material when named by colour) as most reports of "
                              "that name said them (name_votes.py); off: as this segment read them")
    min_report_seen: int = Field(default=3, ge=0, description="an object is reported once its track has been seen "
                                 "this many times (a region read once or twice is more often a misreading than an "
                                 "object; memory would keep it as one)")
    held_state: str = Field(default="held", description="state of an object seen away from any resting place")
    surface_name: str = Field(default="table", description="what objects stand on when in no container")
    surface_category: str = Field(default="furniture", description="category reported for the surface")
    verbs: dict[str, str] = Field(default_factory=lambda: {"pick": "pick up", "put": "put", "pour": "pour"},
                                  description="action kind -> verb in the observation")
    video_root: str | None = Field(default=None, description="where the segment's video file is looked up by "
                                   "video_id to transcribe its audio track (None: no transcript beyond the segment's)")
    transcribe: bool = Field(default=True, description="transcribe the video's audio track with faster-whisper")
    container_categories: list[str] = Field(default_factory=lambda: ["cup", "bowl", "mug", "pot", "pan", "jar"],
                                            description="categories things can be put in or poured into")
    min_surface_frac: float = Field(default=0.05, ge=0, le=1, description="the table is reported when it fills "
                                    "at least this fraction of a frame")
    max_videos: int = Field(default=4, ge=1, description="videos followed at once (least recently seen dropped)")
