// CIFAR-100's files and official names; the reading is cifar_records', shared with CIFAR-10.
#include "runner/data/cifar100.h"

namespace runner {
namespace {

const std::vector<std::string>& official_fine_names() {
  static const std::vector<std::string> names = {
      "apple",       "aquarium_fish", "baby",      "bear",       "beaver",       "bed",
      "bee",         "beetle",        "bicycle",   "bottle",     "bowl",         "boy",
      "bridge",      "bus",           "butterfly", "camel",      "can",          "castle",
      "caterpillar", "cattle",        "chair",     "chimpanzee", "clock",        "cloud",
      "cockroach",   "couch",         "crab",      "crocodile",  "cup",          "dinosaur",
      "dolphin",     "elephant",      "flatfish",  "forest",     "fox",          "girl",
      "hamster",     "house",         "kangaroo",  "keyboard",   "lamp",         "lawn_mower",
      "leopard",     "lion",          "lizard",    "lobster",    "man",          "maple_tree",
      "motorcycle",  "mountain",      "mouse",     "mushroom",   "oak_tree",     "orange",
      "orchid",      "otter",         "palm_tree", "pear",       "pickup_truck", "pine_tree",
      "plain",       "plate",         "poppy",     "porcupine",  "possum",       "rabbit",
      "raccoon",     "ray",           "road",      "rocket",     "rose",         "sea",
      "seal",        "shark",         "shrew",     "skunk",      "skyscraper",   "snail",
      "snake",       "spider",        "squirrel",  "streetcar",  "sunflower",    "sweet_pepper",
      "table",       "tank",          "telephone", "television", "tiger",        "tractor",
      "train",       "trout",         "tulip",     "turtle",     "wardrobe",     "whale",
      "willow_tree", "wolf",          "woman",     "worm"};
  return names;
}

const std::vector<std::string>& official_coarse_names() {
  static const std::vector<std::string> names = {"aquatic_mammals",
                                                 "fish",
                                                 "flowers",
                                                 "food_containers",
                                                 "fruit_and_vegetables",
                                                 "household_electrical_devices",
                                                 "household_furniture",
                                                 "insects",
                                                 "large_carnivores",
                                                 "large_man-made_outdoor_things",
                                                 "large_natural_outdoor_scenes",
                                                 "large_omnivores_and_herbivores",
                                                 "medium_mammals",
                                                 "non-insect_invertebrates",
                                                 "people",
                                                 "reptiles",
                                                 "small_mammals",
                                                 "trees",
                                                 "vehicles_1",
                                                 "vehicles_2"};
  return names;
}

CifarFiles files_for(CifarLabel label) {
  const bool fine = label == CifarLabel::fine;
  CifarFiles f;
  f.name = "cifar100";
  f.title = "CIFAR-100";
  f.label_bytes = 2;  // coarse, then fine
  f.label_byte = fine ? 1 : 0;
  f.label_kind = fine ? "fine label" : "coarse label";
  f.train = {"train.bin"};
  f.test = "test.bin";
  f.official_train = 50'000;
  f.official_test = 10'000;
  f.max_file_bytes = std::size_t{1536} << 20;  // train.bin is 154 MB: 10 times that is not it
  f.names_file = fine ? "fine_label_names.txt" : "coarse_label_names.txt";
  f.official_names = fine ? official_fine_names() : official_coarse_names();
  f.url = kCifar100Url;
  f.archive_folder = "cifar-100-binary";
  f.max_archive_bytes = std::size_t{200} << 20;  // the archive is 169 MB
  return f;
}

}  // namespace

const CifarFiles& cifar100_files(CifarLabel label) {
  static const CifarFiles fine = files_for(CifarLabel::fine);
  static const CifarFiles coarse = files_for(CifarLabel::coarse);
  return label == CifarLabel::fine ? fine : coarse;
}

const char* cifar_label_name(CifarLabel label) {
  return label == CifarLabel::fine ? "fine" : "coarse";
}

DatasetSplits load_cifar100(const std::filesystem::path& root, CifarLabel label) {
  return load_cifar(cifar100_files(label), root);
}

}  // namespace runner
