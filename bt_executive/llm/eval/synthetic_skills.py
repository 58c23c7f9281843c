"""Synthetic skill catalogs: realistic-looking distractor manifests to test routing and prompts at scale.

A fleet catalog has hundreds or thousands of skills from many sites; the
shipped config has a few dozen. ``synthetic_manifests(n, seed)`` makes ``n``
valid ``SkillManifest`` s across domains (warehouse, lab, hospital, kitchen
service, laundry, ...) whose descriptions, verbs and objects read like real
ones and overlap the tabletop's words on purpose (plates, bowls, drawers,
blocks), so a router that only matches words is tested, not flattered. Owners
never clash with shipped ones (``tabletop``, ``builtin``, catalog domains).
The same ``n`` and ``seed`` give the same catalog.
"""

from __future__ import annotations

import random

from bt_executive.skills.manifest import ActionVerb, SkillManifest

V = ActionVerb

# domain -> (objects, places, scenes)
_DOMAINS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "warehouse": (
        ("tote", "parcel", "box", "pallet", "crate", "shelf bin"),
        ("conveyor", "shelf", "pallet", "shipping bay"),
        ("warehouse",),
    ),
    "labauto": (
        ("sample vial", "pipette tip", "petri dish", "well plate", "test tube", "reagent bottle"),
        ("rack", "centrifuge", "incubator", "bench"),
        ("laboratory",),
    ),
    "hospital": (
        ("medicine tray", "blood sample", "linen bag", "bed rail", "iv bag", "supply cart"),
        ("nurse station", "ward", "cart", "bedside table"),
        ("hospital", "ward"),
    ),
    "dining": (
        ("plate", "bowl", "tray", "glass", "napkin", "cutlery"),
        ("table", "counter", "sink", "dish rack"),
        ("restaurant", "kitchen"),
    ),
    "laundry": (
        ("shirt", "towel", "sock", "laundry basket", "sheet", "hanger"),
        ("washer", "dryer", "folding table", "closet"),
        ("laundry room", "home"),
    ),
    "retail": (
        ("product box", "price tag", "shopping basket", "bottle", "can", "bag"),
        ("shelf", "checkout counter", "display", "stockroom"),
        ("store",),
    ),
    "garden": (
        ("plant pot", "watering can", "seed tray", "hose", "weed", "fruit"),
        ("greenhouse bench", "planter", "soil bed", "shed"),
        ("garden", "greenhouse"),
    ),
    "assembly": (
        ("screw", "bolt", "bracket", "panel", "gear", "circuit board"),
        ("fixture", "workbench", "jig", "feeder"),
        ("factory", "workcell"),
    ),
    "office": (
        ("document", "stapler", "mug", "folder", "package", "file drawer"),
        ("desk", "cabinet", "mailroom", "printer"),
        ("office",),
    ),
    "playroom": (
        ("toy block", "ball", "puzzle piece", "stuffed toy", "toy car", "building brick"),
        ("toy box", "shelf", "mat", "bin"),
        ("playroom", "home"),
    ),
    "recycling": (
        ("plastic bottle", "aluminium can", "cardboard", "glass jar", "paper", "battery"),
        ("sorting belt", "bin", "baler", "chute"),
        ("recycling plant",),
    ),
    "hotel": (
        ("room key", "luggage", "towel set", "minibar item", "pillow", "room service tray"),
        ("lobby", "front desk", "guest room", "corridor"),
        ("hotel",),
    ),
    "pharmacy": (
        ("pill bottle", "blister pack", "prescription bag", "syringe", "box of gloves", "label"),
        ("counter", "dispensing robot", "fridge", "shelf"),
        ("pharmacy",),
    ),
    "bakery": (
        ("baking tray", "dough", "loaf", "cake", "flour sack", "oven mitt"),
        ("oven", "proofing rack", "counter", "display case"),
        ("bakery", "kitchen"),
    ),
    "datacenter": (
        ("server blade", "network cable", "hard drive", "power supply", "rack door", "patch panel"),
        ("rack", "cart", "bench", "cage"),
        ("data center",),
    ),
    "farm": (
        ("egg", "feed bucket", "milk can", "hay bale", "gate latch", "apple"),
        ("barn", "coop", "field", "trailer"),
        ("farm",),
    ),
}

# verb -> (name stem, description template, actions); {obj}, {place}, {scene} are filled in.
_TEMPLATES: tuple[tuple[str, str, tuple[ActionVerb, ...]], ...] = (
    ("pick", "Pick up the {obj} from the {place} with a two-finger gripper and keep it held.", (V.PICK, V.GRASP)),
    ("place", "Place the held {obj} down on the {place} and let go of it.", (V.PLACE, V.RELEASE)),
    ("move", "Move a {obj} from where it lies to the {place}: pick it, carry it, set it down.", (V.PICK_AND_PLACE,)),
    ("hand", "Hand the {obj} to a person at the {place}, waiting until they take it.", (V.TRANSFER,)),
    ("open", "Open the {obj} compartment at the {place} by its handle or lid.", (V.OPEN,)),
    ("close", "Close the {obj} compartment at the {place} until it latches.", (V.CLOSE,)),
    ("push", "Push the {obj} along the {place} to a given offset without lifting it.", (V.PUSH,)),
    ("pull", "Pull the {obj} towards the robot across the {place}.", (V.PULL,)),
    ("slide", "Slide the {obj} sideways on the {place} to line it up.", (V.SLIDE,)),
    ("insert", "Insert the {obj} into its slot at the {place} with force control.", (V.INSERT,)),
    ("pour", "Pour the contents of the {obj} out at the {place} at a controlled rate.", (V.POUR,)),
    ("wipe", "Wipe the {place} clean around the {obj} with a cloth held in the gripper.", (V.WIPE,)),
    ("rotate", "Rotate the {obj} on the {place} by a given angle about its vertical axis.", (V.ROTATE,)),
    ("inspect", "Inspect the {obj} on the {place} with the wrist camera and report defects.", (V.INSPECT,)),
    ("scan", "Scan the barcode or label of the {obj} at the {place}.", (V.INSPECT,)),
    ("goto", "Drive the mobile base to the {place} in the {scene} and stop facing it.", (V.NAVIGATE,)),
    ("shake", "Shake the {obj} gently above the {place} to mix or loosen its contents.", (V.SHAKE,)),
    ("sort", "Sort every {obj} on the {place} into bins by type, one at a time.", (V.PICK_AND_PLACE,)),
    ("count", "Count the {obj} items on the {place} from a camera image.", (V.INSPECT,)),
    ("stack", "Stack one {obj} on another on the {place}, aligning their edges.", (V.PICK_AND_PLACE, V.PLACE)),
)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")


def _manifest(
    owner: str, name: str, description: str, actions: tuple[ActionVerb, ...], obj: str, scenes: tuple[str, ...]
) -> SkillManifest:
    return SkillManifest(
        id=f"{owner}/{name}",
        version="1.0.0",
        description=description,
        kind="ros_action",
        actions=actions,
        objects=(obj,),
        scenes=scenes,
        parameters={
            "type": "object",
            "properties": {"target": {"type": "string", "minLength": 1, "description": f"id of the {obj}"}},
            "required": ["target"],
            "additionalProperties": False,
        },
        failure_kinds=("not_found", "timeout"),
        requires=("arm",),
        ros={
            "action_type": "bt_executive_interfaces/action/RunSkill",
            "action_name": f"skills/{owner}_{name}",
            "field_mapping": {"skill_id": "$skill", "args_json": "$args_json"},
        },
    )


def synthetic_manifests(count: int, seed: int = 0) -> list[SkillManifest]:
    """``count`` distinct, valid, realistic distractor manifests (same count and seed, same catalog)."""
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    combos = [
        (domain, template, obj)
        for domain, (objects, _, _) in _DOMAINS.items()
        for template in _TEMPLATES
        for obj in objects
    ]
    rng.shuffle(combos)
    out: list[SkillManifest] = []
    round_ = 0
    while len(out) < count:
        for domain, (stem, text, actions), obj in combos:
            if len(out) == count:
                break
            _, places, scenes = _DOMAINS[domain]
            place = rng.choice(places)
            # Beyond one pass the same skill reappears at another site, as fleets have: owner site2, site3...
            owner = domain if round_ == 0 else f"{domain}{round_ + 1}"
            description = text.format(obj=obj, place=place, scene=scenes[0])
            out.append(_manifest(owner, f"{stem}_{_slug(obj)}", description, actions, obj, scenes))
        round_ += 1
    return out
